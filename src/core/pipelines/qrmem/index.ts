/**
 * @file QRMeM (Wang et al. 2024, "Question then Reflection Memory Mechanism") as an answer
 * pipeline, after PIPELINES.md section 3: two memories of the library (its segments, and an
 * entity graph whose edges carry relation descriptions written by the LLM), built for the
 * question, then navigated: Entity Trial (TE), Graph Expansion Search (GES), or QRMeM proper
 * (KN: reflection rounds that pick the next entity by the similarity of its edge's description
 * to the question, the model's reason for failing and the entities at hand).
 *
 * Construction steps are `qrmem.build.*`, with `phase: 'construction'` and whether they depend
 * on the question in their input; navigation steps are `qrmem.navigate.*` (`phase:
 * 'navigation'`). Every decision PIPELINES.md leaves open is a setting or written in
 * docs/pipelines.md (QRMeM section).
 *
 * Calls per question (3.5): S summary + 1 question generation + per query (q and each pooled
 * question) up to K entity calls and K relation calls (a segment's relations are asked again
 * only when its entity set grew) + M fusions; then 1 question-entity call + T judges + at most 1
 * answer (GES: 1 elaboration + 1 answer). Each parse failure adds a retry (at most 4 per call).
 */
import { cutToTokens, inputBudget, packInOrder } from '../budget';
import { fragmentLocation, preview } from '../library';
import { userMessage } from '../messages';
import { segmentLibrary, type Segment } from '../segment';
import { runTraced, TraceRecorder, type StepHandle } from '../trace';
import type {
  Pipeline,
  PipelineCitation,
  PipelineDocument,
  PipelineEmbedder,
  TraceGraph,
} from '../types';
import { fromMemory, memoryKey, toMemory } from './memory';
import { EntityGraph, nerEntities, type Relation } from './entities';
import {
  callParsed,
  parseJudge,
  parseRelations,
  parseStringList,
  type JudgeVerdict,
  type RetrySchedule,
} from './parse';
import {
  answerPrompt,
  elaboratePrompt,
  entitiesPrompt,
  judgePrompt,
  mergeRelationPrompt,
  questionEntitiesPrompt,
  questionsPrompt,
  relationsPrompt,
  summaryPrompt,
} from './prompts';
import { dedupQuestions } from './rouge';

export { dedupQuestions, rougeL } from './rouge';
export {
  defaultQrmemSettings,
  type QrmemRound,
  type QrmemSettings,
  type QrmemVariant,
} from './settings';
import { defaultQrmemSettings, type QrmemRound, type QrmemSettings } from './settings';
export { EntityGraph, entityKey, nerEntities } from './entities';

const dot = (a: Float32Array, b: Float32Array) => {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
};

export const qrmemPipeline: Pipeline<QrmemSettings> = async (input) => {
  const settings = { ...defaultQrmemSettings, ...input.settings };
  const rec = new TraceRecorder('qrmem', input, { ...settings });
  const { llm, library, question } = input;
  const count = (t: string) => llm.countTokens(t, rec.signal);
  const schedule: RetrySchedule = { maxRetries: settings.maxRetries, first: 0, retry: 0.7 };
  const C = llm.contextLimit;

  return runTraced(rec, async () => {
    const embedder: PipelineEmbedder | undefined = input.embedder;
    if (!embedder)
      throw new Error('QRMeM needs the library embedder for edge similarity; none was given.');
    const similarity = async (query: string, texts: readonly string[]): Promise<number[]> => {
      if (!texts.length) return [];
      const [q] = await embedder.embed([query], 'query', rec.signal);
      const rows = await embedder.embed(texts, 'passage', rec.signal);
      return rows.map((r) => dot(q, r));
    };

    // Sizes (PIPELINES.md section 8).
    const extractFrame = await count(entitiesPrompt('', question));
    const segmentTokens = Math.min(
      settings.segmentTokens || (C >= 4096 ? 600 : 300),
      inputBudget(llm, settings.extractTokens) - extractFrame - settings.margin,
    );
    rec.size({
      name: 'segment size',
      value: segmentTokens,
      unit: 'tokens',
      why: settings.segmentTokens
        ? 'set in the settings'
        : `the paper's 600 at a window of 4,096 or more, 300 below (context ${C})`,
    });
    const judgeFrame = await count(
      judgePrompt([], question, settings.variant === 'te' ? [] : undefined),
    );
    const windowBudget = inputBudget(llm, settings.judgeTokens) - judgeFrame - settings.margin;
    rec.size({
      name: 'window for segments (S_imp + S_c)',
      value: windowBudget,
      unit: 'tokens',
      why: `context ${C} - judge prompt ${judgeFrame} - judge output ${settings.judgeTokens} - template - margin ${settings.margin}`,
    });

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
    const built = missing.length
      ? await segmentLibrary(library, llm, segmentTokens, rec.signal)
      : [];
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
      rec.item({
        id: `segment:${i}`,
        kind: 'segment',
        stepId: segStep.id,
        label: `segment ${i + 1}: ${fragmentLocation(library, s.fragments[0])} (${s.tokens} tokens)`,
        text: preview(s.text),
        fragments: s.fragments,
        scores: { tokens: s.tokens },
        verdict: 'kept',
        reason: `${s.fragments.length} whole fragments${s.cut ? ', cut to the segment size' : ''}`,
      }),
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

    // ---- Navigation (question-dependent).
    const nav = rec.step('qrmem.navigate.start', "The question's entities and their segments", {
      phase: 'navigation',
    });
    const qe = await callParsed(
      rec,
      nav,
      {
        tag: 'qrmem.qentities',
        prompt: questionEntitiesPrompt(question),
        // A question names a few entities: 128 tokens at most, fewer when the extraction cap
        // is lower (a small model can write a list to the cap, and each token costs on a CPU).
        maxTokens: Math.min(128, settings.extractTokens),
      },
      parseStringList,
      schedule,
    );
    const qNames = [...(qe.ok ? qe.value : []), ...nerEntities(question)];
    const E0 = new Set(qNames.flatMap((n) => graph.match(n)));
    let segVectors: number[] | undefined;
    const segmentScores = async () =>
      (segVectors ??= await similarity(
        question,
        segments.map((s) => s.text),
      ));
    if (!E0.size) {
      const scores = await segmentScores();
      const best = scores.indexOf(Math.max(...scores));
      for (const e of graph.entities.values()) if (e.segments.includes(best)) E0.add(e.key);
      nav.note(
        `No question entity is in the graph: started from the entities of segment ${best + 1}, the most similar to the question.`,
      );
    }
    const segsOf = (keys: Iterable<string>) => {
      const out = new Set<number>();
      for (const k of keys) for (const s of graph.entities.get(k)?.segments ?? []) out.add(s);
      return [...out].sort((a, b) => a - b);
    };
    // S_imp, ranked by similarity to q and truncated when it alone overflows the window.
    let Simp = segsOf(E0);
    const tokensOf = (list: readonly number[]) =>
      list.reduce((n, s) => n + segments[s].tokens + 4, 0);
    if (tokensOf(Simp) > windowBudget) {
      const scores = await segmentScores();
      const ranked = [...Simp].sort((a, b) => scores[b] - scores[a] || a - b);
      const packed = packInOrder(
        ranked.map((s) => segments[s].tokens),
        windowBudget,
        4,
      );
      nav.note(
        `S_imp overflows the window: kept the ${packed.kept.length} of ${Simp.length} segments most similar to the question.`,
      );
      Simp = packed.kept.map((i) => ranked[i]).sort((a, b) => a - b);
    }
    nav.done({ entities: [...E0], segments: Simp.map((s) => s + 1) });

    const rounds: QrmemRound[] = [];
    const path: string[] = [...E0];
    const scoredEdges = new Map<string, number>();
    let context: number[] = Simp;
    let answer = '';
    let lastCalls: number[] = [];
    let stopReason = '';

    const judge = async (step: StepHandle, ctx: number[], entities?: string[]) => {
      const got = await callParsed(
        rec,
        step,
        {
          tag: 'qrmem.judge',
          prompt: judgePrompt(
            ctx.map((s) => segments[s].text),
            question,
            entities,
          ),
          maxTokens: settings.judgeTokens,
          after: lastCalls,
        },
        parseJudge,
        schedule,
      );
      lastCalls = got.calls.slice(-1);
      const verdict: JudgeVerdict = got.ok
        ? got.value
        : { answerable: false, answer: '', reason: '' };
      return verdict;
    };
    const edgeText = (r: Relation) =>
      `${graph.entities.get(r.head)!.name} ${r.text} ${graph.entities.get(r.tail)!.name}`;

    if (settings.variant === 'kn') {
      const E = new Set(E0);
      const Sc = new Map<number, number>();
      for (let trial = 1; ; trial++) {
        const step = rec.step(`qrmem.navigate.${trial}`, `Reflection round ${trial}`, {
          phase: 'navigation',
        });
        context = [...Simp, ...[...Sc.keys()]].sort((a, b) => a - b);
        const v = await judge(step, context);
        const round: QrmemRound = {
          trial,
          answerable: v.answerable,
          reason: v.reason,
          entities: [...E],
          added: [],
          evicted: [],
        };
        rounds.push(round);
        if (v.answerable) {
          answer = v.answer;
          stopReason = 'answerable';
        } else if (trial >= settings.maxTrials) stopReason = 'trial limit';
        else {
          const edges = new Map<string, { from: string; other: string; relation: Relation }>();
          for (const k of E)
            for (const n of graph.neighbours(k))
              if (!E.has(n.other)) edges.set(`${k}\u0000${n.other}`, { from: k, ...n });
          const list = [...edges.values()];
          if (!list.length) stopReason = 'no new neighbour';
          else {
            const names = [...E].map((k) => graph.entities.get(k)!.name);
            const query = settings.reflection
              ? `${question} ${v.reason} ${names.join(' ')}`
              : question;
            const scores = await similarity(
              query,
              list.map((e) => edgeText(e.relation)),
            );
            list.forEach((e, i) =>
              scoredEdges.set(
                EntityGraph.pairKey(e.from, e.other),
                Math.max(scoredEdges.get(EntityGraph.pairKey(e.from, e.other)) ?? -1, scores[i]),
              ),
            );
            let best = 0;
            for (let i = 1; i < list.length; i++)
              if (
                scores[i] > scores[best] ||
                (scores[i] === scores[best] && list[i].other < list[best].other)
              )
                best = i;
            const chosen = list[best];
            E.add(chosen.other);
            path.push(chosen.other);
            round.edge = {
              from: chosen.from,
              to: chosen.other,
              relation: chosen.relation.text,
              similarity: round4(scores[best]),
            };
            const fresh = graph.entities
              .get(chosen.other)!
              .segments.filter((s) => !Simp.includes(s) && !Sc.has(s));
            const freshScores = await similarity(
              query,
              fresh.map((s) => segments[s].text),
            );
            fresh.forEach((s, i) => Sc.set(s, freshScores[i]));
            round.added = fresh;
            // Window check: the best-scoring candidates that fit beside S_imp.
            const room = windowBudget - tokensOf(Simp);
            const ranked = [...Sc.entries()].sort((a, b) => b[1] - a[1] || a[0] - b[0]);
            const packed = packInOrder(
              ranked.map(([s]) => segments[s].tokens),
              room,
              4,
            );
            for (const i of packed.dropped) {
              Sc.delete(ranked[i][0]);
              round.evicted.push(ranked[i][0]);
            }
            round.added = round.added.filter((s) => Sc.has(s));
            round.candidates = [...Sc.entries()].map(([segment, score]) => ({
              segment,
              score: round4(score),
            }));
          }
        }
        recordRound(step, round);
        step.done({ answerable: v.answerable, ...(stopReason ? { stop: stopReason } : {}) });
        if (stopReason) break;
      }
    } else if (settings.variant === 'te') {
      let E = new Set(E0);
      for (let trial = 1; ; trial++) {
        const step = rec.step(`qrmem.navigate.${trial}`, `Entity trial ${trial}`, {
          phase: 'navigation',
        });
        const segs = segsOf(E);
        const scores = await segmentScores();
        const ranked = [...segs].sort((a, b) => scores[b] - scores[a] || a - b);
        const packed = packInOrder(
          ranked.map((s) => segments[s].tokens),
          windowBudget,
          4,
        );
        context = packed.kept.map((i) => ranked[i]).sort((a, b) => a - b);
        const names = [...E].map((k) => graph.entities.get(k)!.name);
        const v = await judge(step, context, names);
        const round: QrmemRound = {
          trial,
          answerable: v.answerable,
          reason: v.reason,
          entities: [...E],
          added: context,
          evicted: packed.dropped.map((i) => ranked[i]),
        };
        rounds.push(round);
        if (v.answerable) {
          answer = v.answer;
          stopReason = 'answerable';
        } else if (packed.dropped.length) stopReason = 'window full';
        else if (trial >= settings.maxTrials) stopReason = 'trial limit';
        else {
          const next = new Set((v.entities ?? []).flatMap((n) => graph.match(n)));
          const same = next.size === E.size && [...next].every((k) => E.has(k));
          if (!next.size || same) stopReason = 'no new entity';
          else {
            for (const k of next) if (!E.has(k)) path.push(k);
            E = next;
          }
        }
        recordRound(step, round);
        step.done({ answerable: v.answerable, ...(stopReason ? { stop: stopReason } : {}) });
        if (stopReason) break;
      }
    } else {
      // GES: expand by edge similarity to q, no reflection; then q* and retrieval.
      const step = rec.step('qrmem.navigate.expand', 'Graph expansion search', {
        phase: 'navigation',
      });
      const E = new Set(E0);
      for (let hop = 1; hop <= settings.gesHops; hop++) {
        const edges = new Map<string, { from: string; other: string; relation: Relation }>();
        for (const k of E)
          for (const n of graph.neighbours(k))
            if (!E.has(n.other)) edges.set(`${k}\u0000${n.other}`, { from: k, ...n });
        const list = [...edges.values()];
        const scores = await similarity(
          question,
          list.map((e) => edgeText(e.relation)),
        );
        const order = list
          .map((e, i) => ({ e, s: scores[i] }))
          .filter((x) => x.s >= settings.gesMinSimilarity)
          .sort((a, b) => b.s - a.s || (a.e.other < b.e.other ? -1 : 1));
        const taken: string[] = [];
        for (const { e, s } of order) {
          if (taken.length >= settings.gesTopEdges) break;
          scoredEdges.set(EntityGraph.pairKey(e.from, e.other), s);
          if (E.has(e.other)) continue;
          E.add(e.other);
          path.push(e.other);
          taken.push(e.other);
        }
        step.note(
          `hop ${hop}: ${taken.length ? `added ${taken.join(', ')}` : 'no edge passed the bar'}`,
        );
        if (!taken.length) {
          stopReason = hop === 1 ? 'no edge passed the similarity bar' : `stopped at hop ${hop}`;
          break;
        }
      }
      stopReason ||= 'hop limit';
      const relTexts = [...graph.relations.values()]
        .filter((r) => E.has(r.head) && E.has(r.tail))
        .map(edgeText);
      const names = [...E].map((k) => graph.entities.get(k)!.name);
      const el = await rec.call(step, {
        tag: 'qrmem.elaborate',
        messages: userMessage(elaboratePrompt(question, names, relTexts.slice(0, 20))),
        maxTokens: 128,
        temperature: 0,
      });
      lastCalls = [el.call.id];
      const qStar = el.text.trim() || question;
      const both = `${question} ${qStar}`;
      const segs = segsOf(E);
      const relScores = await similarity(both, relTexts);
      const topRelations = relTexts
        .map((t, i) => ({ t, s: relScores[i] }))
        .sort((a, b) => b.s - a.s)
        .slice(0, 10)
        .map((x) => x.t);
      const frame = await count(answerPrompt([], question, topRelations));
      const budget = inputBudget(llm, settings.answerTokens) - frame - settings.margin;
      const scores = await similarity(
        both,
        segs.map((s) => segments[s].text),
      );
      const ranked = segs
        .map((s, i) => ({ s, v: scores[i] }))
        .sort((a, b) => b.v - a.v || a.s - b.s);
      const packed = packInOrder(
        ranked.map((x) => segments[x.s].tokens),
        budget,
        4,
      );
      context = packed.kept.map((i) => ranked[i].s).sort((a, b) => a - b);
      step.done({ expanded: [...E], qStar, segments: context.map((s) => s + 1), stop: stopReason });
      const answerStep = rec.step(
        'qrmem.answer',
        'Answer from the retrieved segments and relations',
        { phase: 'navigation' },
      );
      const reply = await rec.call(answerStep, {
        tag: 'qrmem.answer',
        messages: userMessage(
          answerPrompt(
            context.map((s) => segments[s].text),
            qStar,
            topRelations,
          ),
        ),
        maxTokens: settings.answerTokens,
        temperature: 0,
        after: lastCalls,
        onToken: input.onAnswerToken,
      });
      answer = reply.text;
      answerStep.done({ segments: context.length });
    }

    if (settings.variant !== 'ges') {
      if (stopReason !== 'answerable') {
        const answerStep = rec.step(
          'qrmem.answer',
          `Answer from the segments at hand (${stopReason})`,
          {
            phase: 'navigation',
          },
        );
        const reply = await rec.call(answerStep, {
          tag: 'qrmem.answer',
          messages: userMessage(
            answerPrompt(
              context.map((s) => segments[s].text),
              question,
            ),
          ),
          maxTokens: settings.answerTokens,
          temperature: 0,
          after: lastCalls,
          onToken: input.onAnswerToken,
        });
        answer = reply.text;
        answerStep.done({ segments: context.length });
      } else input.onAnswerToken?.(answer);
    }

    // The graph payload: every entity and relation, the navigated part marked.
    const onPath = new Set(path);
    const start = new Set(E0);
    const payload: TraceGraph = {
      kind: 'entity-graph',
      nodes: [...graph.entities.values()].map((e) => ({
        id: `entity:${e.key}`,
        label: e.name,
        group: start.has(e.key) ? 'start' : onPath.has(e.key) ? 'path' : 'other',
      })),
      edges: [...graph.relations.values()].map((r) => {
        const w = scoredEdges.get(EntityGraph.pairKey(r.head, r.tail));
        return {
          from: `entity:${r.head}`,
          to: `entity:${r.tail}`,
          label: r.text,
          ...(w !== undefined ? { weight: round4(w) } : {}),
        };
      }),
    };
    rec.graph(payload);
    const last = rec.trace.steps.at(-1)!;
    last.output = {
      ...last.output,
      path,
      stop: stopReason,
      rounds,
      answerSegments: context.map((s) => s + 1),
    };
    context.forEach((s, i) =>
      rec.item({
        id: `answer-segment:${s}`,
        kind: 'segment',
        stepId: last.id,
        label: `[${i + 1}] segment ${s + 1}`,
        text: preview(segments[s].text),
        fragments: segments[s].fragments,
        rank: i,
        verdict: 'kept',
        reason: Simp.includes(s) ? "in S_imp (the question's entities)" : 'added by navigation',
      }),
    );
    const citations: PipelineCitation[] = context.map((s, i) => ({
      label: i + 1,
      index: segments[s].fragments[0],
      location: fragmentLocation(library, segments[s].fragments[0]),
    }));
    return { answer, citations };

    function recordRound(step: StepHandle, round: QrmemRound) {
      rec.item({
        id: `round:${round.trial}`,
        kind: 'round',
        stepId: step.id,
        label: `round ${round.trial}: ${round.answerable ? 'answerable' : 'not answerable'}`,
        text:
          (round.reason ? `reason: ${round.reason}` : '') +
          (round.edge
            ? `\nnext: ${round.edge.from} -> ${round.edge.to} ("${round.edge.relation}", similarity ${round.edge.similarity})`
            : '') +
          (round.added.length
            ? `\nadded segments ${round.added.map((s) => s + 1).join(', ')}`
            : '') +
          (round.evicted.length
            ? `\nevicted segments ${round.evicted.map((s) => s + 1).join(', ')}`
            : ''),
        ...(round.edge ? { scores: { similarity: round.edge.similarity } } : {}),
        verdict: 'kept',
        reason: round.answerable ? 'the model can answer' : round.reason || 'no reason given',
      });
    }

    async function summarise(
      step: StepHandle,
      texts: string[],
    ): Promise<{ text: string; calls: number[] }> {
      // Map over groups that fit the window, then reduce until one summary of <= 800 tokens.
      const frame = await count(summaryPrompt([], 300));
      const group = Math.min(
        3000,
        inputBudget(llm, settings.summaryTokens) - frame - settings.margin,
      );
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
  });
};

const round2 = (x: number) => Math.round(x * 100) / 100;
const round4 = (x: number) => Math.round(x * 10000) / 10000;
