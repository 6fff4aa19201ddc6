/**
 * @file QRMeM's construction (PIPELINES.md 3.2-3.3): the two memories of the library built for
 * the question. Question-independent: segments, their named entities (compromise) and, with
 * generated questions, a map-reduce summary; these are kept in the library's memory and reused by
 * the next question. Question-dependent: the generated questions, then per query the LLM's
 * entities and relations of every segment, and the fusion of relations described in several
 * segments. Steps are `qrmem.build.*` with `phase: 'construction'`.
 */
import { cutToTokens, inputBudget } from '../budget';
import { userMessage } from '../messages';
import { segmentItem, segmentLibrary, type Segment } from '../segment';
import type { StepHandle } from '../trace';
import type { PipelineDocument } from '../types';
import { EntityGraph, nerEntities } from './entities';
import { fromMemory, memoryKey, toMemory } from './memory';
import { callParsed, parseRelations, parseStringList } from './parse';
import {
  entitiesPrompt,
  mergeRelationPrompt,
  questionsPrompt,
  relationsPrompt,
  summaryPrompt,
} from './prompts';
import { dedupQuestions } from './rouge';
import { round2, type QrmemRun } from './run';

/** What navigation reads: the segments and the entity graph over them. */
export interface QrmemMemory {
  segments: Segment[];
  graph: EntityGraph;
}

/** Build both memories for the question, with segments of `segmentTokens`. */
export async function buildMemory(run: QrmemRun, segmentTokens: number): Promise<QrmemMemory> {
  const { input, rec, settings, schedule, count } = run;
  const { llm, library, question } = input;
  // ---- Construction, question-independent: segments, NER, summary.
  const segStep = rec.step('qrmem.build.segment', 'Split the documents into segments', {
    phase: 'construction',
    dependsOnQuestion: false,
  });
  // The question-independent memory of each document, reused when the library has it.
  const key = memoryKey(segmentTokens, llm);
  const remembered = new Map<string, ReturnType<typeof fromMemory>>();
  if (input.memory)
    for (const doc of library.documents) {
      let value: unknown;
      try {
        value = await input.memory.get(doc.docId, key);
      } catch {
        value = undefined;
      }
      const m = value === undefined ? null : fromMemory(library, doc, value);
      if (value !== undefined && !m)
        segStep.note(`${doc.name}: the stored memory no longer fits the document; rebuilt.`);
      if (m) remembered.set(doc.docId, m);
    }
  const missing = library.documents.filter((d) => !remembered.has(d.docId));
  const built = missing.length ? await segmentLibrary(library, llm, segmentTokens, rec.signal) : [];
  const segments: Segment[] = [];
  const ner: string[][] = [];
  for (const doc of library.documents) {
    const m = remembered.get(doc.docId);
    if (m) {
      segments.push(...m.segments);
      ner.push(...m.ner);
    } else
      for (const s of built.filter((b) => b.docId === doc.docId)) {
        const names = nerEntities(s.text);
        segments.push(s);
        ner.push(names);
      }
  }
  const reused = library.documents.filter((d) => remembered.has(d.docId)).map((d) => d.name);
  if (reused.length)
    segStep.note(
      `Reused from the library's memory (built for an earlier question): segments and named entities of ${reused.join(', ')}.`,
    );
  segments.forEach((s, i) =>
    rec.item(
      segmentItem(
        library,
        segStep.id,
        s,
        i,
        `${s.fragments.length} whole fragments${s.cut ? ', cut to the segment size' : ''}`,
      ),
    ),
  );
  segStep.done({ segments: segments.length, reused, built: missing.map((d) => d.name) });

  const nerStep = rec.step('qrmem.build.ner', 'Named entities of every segment (compromise)', {
    phase: 'construction',
    dependsOnQuestion: false,
  });
  nerStep.done({
    mentions: ner.reduce((n, l) => n + l.length, 0),
    reused,
    built: missing.map((d) => d.name),
  });
  const remember = async (doc: PipelineDocument, summary?: string) => {
    if (!input.memory) return;
    const own = segments.filter((s) => s.docId === doc.docId);
    const value = toMemory(
      library,
      doc,
      own,
      own.map((s) => ner[segments.indexOf(s)]),
      summary,
    );
    const ok = await input.memory.put(doc.docId, key, value).catch(() => false);
    if (!ok)
      nerStep.note(`${doc.name}: the memory could not be stored; the next question rebuilds it.`);
  };
  const single = library.documents.length === 1 ? library.documents[0] : undefined;
  // A one-document library keeps its summary too; store after the summary then.
  for (const doc of missing) if (doc !== single || settings.questions <= 0) await remember(doc);

  const graph = new EntityGraph();
  ner.forEach((names, i) => names.forEach((n) => graph.addMention(n, i, 'ner')));

  let pool = [question];
  if (settings.questions > 0) {
    const sumStep = rec.step('qrmem.build.summary', 'Summarise the library (map-reduce)', {
      phase: 'construction',
      dependsOnQuestion: false,
    });
    const stored = single ? remembered.get(single.docId)?.summary : undefined;
    const summary =
      stored !== undefined
        ? { text: stored, calls: [] as number[] }
        : await summarise(
            run,
            sumStep,
            segments.map((s) => s.text),
          );
    if (stored !== undefined) sumStep.note("Reused the summary from the library's memory.");
    else if (single) await remember(single, summary.text);
    sumStep.done({ summaryTokens: await count(summary.text), reused: stored !== undefined });

    const qStep = rec.step('qrmem.build.questions', 'Generate questions from the summary', {
      phase: 'construction',
      dependsOnQuestion: true,
    });
    const generated = await callParsed(
      rec,
      qStep,
      {
        tag: 'qrmem.questions',
        prompt: questionsPrompt(summary.text, question, settings.questions),
        maxTokens: settings.extractTokens,
        after: summary.calls,
      },
      parseStringList,
      schedule,
    );
    const candidates = generated.ok ? generated.value.slice(0, settings.questions) : [];
    const dedup = dedupQuestions(pool, candidates, settings.rougeThreshold);
    dedup.decisions.forEach((d, i) =>
      rec.item({
        id: `question:${i}`,
        kind: 'question',
        stepId: qStep.id,
        label: `generated question ${i + 1}`,
        text: d.question,
        scores: { rougeL: round2(d.maxRouge) },
        verdict: d.kept ? 'kept' : 'dropped',
        reason: d.kept
          ? `ROUGE-L ${round2(d.maxRouge)} < ${settings.rougeThreshold} against every pooled question`
          : `ROUGE-L ${round2(d.maxRouge)} >= ${settings.rougeThreshold} against "${d.closest}"`,
      }),
    );
    pool = dedup.pool;
    qStep.done({
      asked: settings.questions,
      generated: candidates.length,
      pooled: pool.length - 1,
    });
  }

  // ---- Construction, question-dependent: entities and relations per query.
  const relationsAskedFor = new Map<number, string>();
  for (let k = 0; k < pool.length; k++) {
    const query = pool[k];
    const step = rec.step(
      `qrmem.build.graph.${k}`,
      k === 0
        ? 'Entities and relations for the question'
        : `Entities and relations for generated question ${k}`,
      { phase: 'construction', dependsOnQuestion: true, query },
    );
    let llmMentions = 0;
    let relationCalls = 0;
    await Promise.all(
      segments.map(async (s, i) => {
        const names = [...ner[i]];
        const after: number[] = [];
        if (settings.llmEntities) {
          const got = await callParsed(
            rec,
            step,
            {
              tag: 'qrmem.entities',
              prompt: entitiesPrompt(s.text, query),
              maxTokens: settings.extractTokens,
            },
            parseStringList,
            schedule,
          );
          after.push(...got.calls);
          if (got.ok)
            for (const n of got.value)
              if (graph.addMention(n, i, 'llm')) {
                names.push(n);
                llmMentions++;
              }
        }
        // The segment's whole entity set so far (earlier queries included), by key.
        const present = [...graph.entities.values()].filter((e) => e.segments.includes(i));
        if (present.length < 2) return;
        const signature = present
          .map((e) => e.key)
          .sort()
          .join('|');
        if (relationsAskedFor.get(i) === signature) return;
        relationsAskedFor.set(i, signature);
        relationCalls++;
        const rel = await callParsed(
          rec,
          step,
          {
            tag: 'qrmem.relations',
            prompt: relationsPrompt(
              s.text,
              present.map((e) => e.name),
            ),
            maxTokens: settings.extractTokens,
            after,
          },
          parseRelations,
          schedule,
        );
        if (rel.ok) for (const t of rel.value) graph.addRelation(t.head, t.tail, t.relation, i);
      }),
    );
    step.done({
      llmMentions,
      relationCalls,
      entities: graph.entities.size,
      relations: graph.relations.size,
    });
  }

  const fuse = graph.toFuse();
  if (fuse.length) {
    const step = rec.step(
      'qrmem.build.merge',
      'Fuse the relations of pairs described in several segments',
      {
        phase: 'construction',
        dependsOnQuestion: true,
        pairs: fuse.length,
      },
    );
    const frame = await count(mergeRelationPrompt('', '', [], []));
    await Promise.all(
      fuse.map(async (r) => {
        const names = [graph.entities.get(r.head)!.name, graph.entities.get(r.tail)!.name];
        const parts = r.parts.map((p) => p.text);
        const room =
          inputBudget(llm, 128) - frame - settings.margin - (await count(parts.join(' ')));
        const each = Math.max(20, Math.floor(room / r.segments.length));
        const texts = [];
        for (const s of r.segments)
          texts.push((await cutToTokens(llm, segments[s].text, each, rec.signal)).text);
        const reply = await rec.call(step, {
          tag: 'qrmem.merge',
          messages: userMessage(mergeRelationPrompt(names[0], names[1], parts, texts)),
          maxTokens: 128,
          temperature: 0,
        });
        const fused = reply.text.trim();
        reply.call.parse = fused ? 'fused relation' : 'empty reply: the descriptions were joined';
        r.text = fused || parts.join('; ');
      }),
    );
    step.done({ fused: fuse.length });
  }
  for (const e of graph.entities.values())
    rec.item({
      id: `entity:${e.key}`,
      kind: 'entity',
      stepId: 'qrmem.build.graph.0',
      label: e.name,
      text: `mentions: ${e.mentions.join(', ')}; segments: ${e.segments.map((s) => s + 1).join(', ')}`,
      fragments: e.segments.flatMap((s) => segments[s].fragments),
      scores: { segments: e.segments.length },
      verdict: 'kept',
      reason: `from ${e.sources.join(' and ')}`,
    });
  return { segments, graph };
}

/** Map over groups that fit the window, then reduce until one summary of <= 800 tokens. */
async function summarise(
  run: QrmemRun,
  step: StepHandle,
  texts: string[],
): Promise<{ text: string; calls: number[] }> {
  const { input, rec, settings, count } = run;
  const { llm } = input;
  const frame = await count(summaryPrompt([], 300));
  const group = Math.min(3000, inputBudget(llm, settings.summaryTokens) - frame - settings.margin);
  let parts = texts;
  let calls: number[] = [];
  for (let level = 0; level < 6; level++) {
    const sizes: number[] = [];
    for (const p of parts) sizes.push(await count(p));
    const total = sizes.reduce((a, b) => a + b, 0);
    if (level > 0 && (parts.length === 1 || total <= 800)) break;
    const groups: string[][] = [];
    let cur: string[] = [];
    let used = 0;
    parts.forEach((p, i) => {
      if (cur.length && used + sizes[i] > group) {
        groups.push(cur);
        cur = [];
        used = 0;
      }
      cur.push(p);
      used += sizes[i];
    });
    if (cur.length) groups.push(cur);
    const prev = calls;
    const out = await Promise.all(
      groups.map((g) =>
        rec.call(step, {
          tag: 'qrmem.summary',
          messages: userMessage(summaryPrompt(g, 300)),
          maxTokens: settings.summaryTokens,
          temperature: 0,
          after: prev,
        }),
      ),
    );
    parts = out.map((o) => o.text.trim());
    calls = out.map((o) => o.call.id);
    if (parts.length === 1) break;
  }
  return { text: parts.join('\n\n'), calls };
}
