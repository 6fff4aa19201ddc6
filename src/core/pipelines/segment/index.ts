/**
 * @file SEGMENT+ (Shi et al., EMNLP 2024) as an answer pipeline over the library, after
 * PIPELINES.md section 4: segments of whole fragments sized to the engine's window, one
 * structured note per segment, a filter (rules, then an optional LLM judge), merging in batches
 * round after round until the notes fit the answer's window, and the answer from the merged
 * notes alone.
 *
 * Calls per question (4.3): n notes (+1 per retried note) + f judges (the notes that pass the
 * rules) + sum over rounds of the batches of two or more notes + 1 answer.
 */
import { countEach, cutToTokens, inputBudget, packInOrder } from '../budget';
import { fragmentLocation, fragmentText, fragmentsByDocument, preview } from '../library';
import { userMessage } from '../messages';
import { runTraced, TraceRecorder, type StepHandle } from '../trace';
import type {
  Pipeline,
  PipelineCitation,
  PipelineLibrary,
  PipelineLlm,
  TraceGraph,
  TraceItem,
} from '../types';
import { fallbackNote, parseJudge, parseNote, ruleFilter, serializeNote, type Note } from './notes';
import { answerPrompt, judgePrompt, mergePrompt, notePrompt } from './prompts';

export interface SegmentSettings {
  /** Segment size S in tokens; 0 = adapted to the window (segmentSizes). */
  segmentTokens: number;
  /** Output cap of note and merge calls; 0 = adapted (768 at 4K, 384 at 2K). */
  noteTokens: number;
  /** The LLM judge after the rule filter (PIPELINES.md: on by default). */
  llmJudge: boolean;
  /** 'B': the model writes the merged Evidence (the published prompt); 'A': Evidence is concatenated. */
  evidenceMerge: 'A' | 'B';
  /**
   * How notes and merges are asked for: 'json', the published `{"Evidence", "Reasoning"}` object;
   * 'lines', an `Evidence:` line and a `Reasoning:` line, for small models that cannot write the
   * JSON (SmolLM2 135M nests objects until its cap). Either reply is read whichever was asked.
   */
  noteFormat: 'json' | 'lines';
  answerTokens: number;
  maxRounds: number;
  temperature: number;
  /** Tokens kept free in every call besides its output and template. */
  margin: number;
  /** Merge batch limit and the notes' answer budget in tokens; 0 = adapted to the window. */
  mergeBatchTokens: number;
  answerNotesTokens: number;
}

/** What a note's parse did, as its call in the trace says. */
const PARSED = {
  json: 'parsed JSON',
  repaired: 'repaired JSON (jsonrepair)',
  lines: 'read as Evidence and Reasoning lines',
} as const;

export const defaultSegmentSettings: SegmentSettings = {
  segmentTokens: 0,
  noteTokens: 0,
  llmJudge: true,
  evidenceMerge: 'B',
  noteFormat: 'json',
  answerTokens: 128,
  maxRounds: 5,
  temperature: 0,
  margin: 200,
  mergeBatchTokens: 0,
  answerNotesTokens: 0,
};

export interface SegmentSizes {
  segmentTokens: number;
  noteTokens: number;
  batchTokens: number;
  answerBudget: number;
}

/**
 * PIPELINES.md section 8: S = window - note prompt - note output - margin, at most 3000, on the
 * paper's 500-token grid (2,500 at 4K, 1,000 at 2K); the merge batch limit = window - merge
 * prompt - output - margin; the notes fit when they total at most window - answer prompt -
 * answer tokens - margin.
 */
export function segmentSizes(
  contextLimit: number,
  settings: SegmentSettings,
  frames: { note: number; merge: number; answer: number },
): SegmentSizes {
  const noteTokens = settings.noteTokens || (contextLimit >= 4096 ? 768 : 384);
  const room = contextLimit - frames.note - noteTokens - settings.margin;
  const grid = room >= 1000 ? Math.floor(room / 500) * 500 : Math.floor(room / 100) * 100;
  const segmentTokens = settings.segmentTokens || Math.max(100, Math.min(3000, grid));
  return {
    segmentTokens,
    noteTokens,
    batchTokens:
      settings.mergeBatchTokens || contextLimit - frames.merge - noteTokens - settings.margin,
    answerBudget:
      settings.answerNotesTokens ||
      contextLimit - frames.answer - settings.answerTokens - settings.margin,
  };
}

export interface Segment {
  docId: string;
  /** Fragment indices, consecutive in one document. */
  fragments: number[];
  text: string;
  tokens: number;
  /** The one fragment was longer than S and was cut. */
  cut: boolean;
}

/** A segment as a trace item of the step that split the library (SEGMENT+ and QRMeM alike). */
export function segmentItem(
  library: PipelineLibrary,
  stepId: string,
  s: Segment,
  i: number,
  reason: string,
): TraceItem {
  return {
    id: `segment:${i}`,
    kind: 'segment',
    stepId,
    label: `segment ${i + 1}: ${fragmentLocation(library, s.fragments[0])} (${s.tokens} tokens)`,
    text: preview(s.text),
    fragments: s.fragments,
    scores: { tokens: s.tokens },
    verdict: 'kept',
    reason,
  };
}

/**
 * Consecutive whole fragments of one document packed up to `limit` tokens, never crossing a
 * document; a fragment longer than `limit` is a segment of its own, cut to the limit.
 */
export async function segmentLibrary(
  library: PipelineLibrary,
  llm: PipelineLlm,
  limit: number,
  signal?: import('../../abort').AbortSignalLike,
): Promise<Segment[]> {
  const segments: Segment[] = [];
  for (const [docId, fragments] of fragmentsByDocument(library)) {
    const doc = library.documents.find((d) => d.docId === docId)!;
    const sizes = await countEach(
      llm,
      fragments.map((f) => fragmentText(library, f.index)),
      signal,
    );
    let current: number[] = [];
    let used = 0;
    const close = async () => {
      if (!current.length) return;
      const first = library.fragments[current[0]];
      const last = library.fragments[current[current.length - 1]];
      let text = doc.text.slice(first.start, last.end);
      let tokens = used;
      let cut = false;
      if (tokens > limit) {
        const fitted = await cutToTokens(llm, text, limit, signal);
        text = fitted.text;
        tokens = fitted.tokens;
        cut = true;
      }
      segments.push({ docId, fragments: current, text, tokens, cut });
      current = [];
      used = 0;
    };
    for (let k = 0; k < fragments.length; k++) {
      if (current.length && used + sizes[k] > limit) await close();
      current.push(fragments[k].index);
      used += sizes[k];
    }
    await close();
  }
  return segments;
}

/** A note in the merge tree: its text, the segments it covers and its size. */
interface Entry {
  id: string;
  note: Note;
  segments: number[];
  tokens: number;
}

export const segmentPipeline: Pipeline<SegmentSettings> = async (input) => {
  const settings = { ...defaultSegmentSettings, ...input.settings };
  const rec = new TraceRecorder('segment', input, { ...settings });
  const { llm, library, question } = input;
  const count = (t: string) => llm.countTokens(t, rec.signal);
  const byModel = settings.evidenceMerge === 'B';
  const call = (
    step: StepHandle,
    tag: string,
    prompt: string,
    maxTokens: number,
    after: number[] = [],
  ) =>
    rec.call(step, {
      tag,
      messages: userMessage(prompt),
      maxTokens,
      temperature: settings.temperature,
      after,
    });

  return runTraced(rec, async () => {
    const frames = {
      note: await count(notePrompt('', question, settings.noteFormat)),
      merge: await count(mergePrompt([], question, byModel, settings.noteFormat)),
      answer: await count(answerPrompt([], question)),
    };
    const sizes = segmentSizes(llm.contextLimit, settings, frames);
    const C = llm.contextLimit;
    rec.size({
      name: 'segment size S',
      value: sizes.segmentTokens,
      unit: 'tokens',
      why: settings.segmentTokens
        ? 'set in the settings'
        : `min(3000, context ${C} - note prompt ${frames.note} - note output ${sizes.noteTokens} - margin ${settings.margin}), on the 500-token grid`,
    });
    rec.size({
      name: 'note and merge output',
      value: sizes.noteTokens,
      unit: 'tokens',
      why: `${C >= 4096 ? 768 : 384} for a ${C}-token window`,
    });
    rec.size({
      name: 'merge batch limit',
      value: sizes.batchTokens,
      unit: 'tokens',
      why: settings.mergeBatchTokens
        ? 'set in the settings'
        : `context ${C} - merge prompt ${frames.merge} - output ${sizes.noteTokens} - margin ${settings.margin}`,
    });
    rec.size({
      name: 'notes fit the answer when at most',
      value: sizes.answerBudget,
      unit: 'tokens',
      why: settings.answerNotesTokens
        ? 'set in the settings'
        : `context ${C} - answer prompt ${frames.answer} - answer ${settings.answerTokens} - margin ${settings.margin}`,
    });

    // 1. Segments.
    const segStep = rec.step('segment.segment', 'Split the documents into segments');
    const segments = await segmentLibrary(
      library,
      llm,
      Math.min(sizes.segmentTokens, inputBudget(llm, sizes.noteTokens) - frames.note),
      rec.signal,
    );
    segments.forEach((s, i) => {
      if (s.cut) segStep.note(`Segment ${i + 1} is one fragment longer than S: cut to fit.`);
      rec.item(segmentItem(library, segStep.id, s, i, `${s.fragments.length} whole fragments`));
    });
    segStep.done({ segments: segments.length });

    // 2. Notes: one call per segment, all independent; a reply that cannot be parsed is retried once.
    const noteStep = rec.step('segment.note', 'Take a note from every segment', {
      segments: segments.length,
    });
    const notes = await Promise.all(
      segments.map(async (s, i): Promise<{ note: Note; call: number }> => {
        const prompt = notePrompt(s.text, question, settings.noteFormat);
        const first = await call(noteStep, 'segment.note', prompt, sizes.noteTokens);
        const parsed = parseNote(first.text);
        if (parsed.ok) {
          first.call.parse = PARSED[parsed.how];
          return { note: parsed.note, call: first.call.id };
        }
        first.call.parse = `${parsed.reason}: retried once`;
        const second = await call(noteStep, 'segment.note', prompt, sizes.noteTokens, [
          first.call.id,
        ]);
        const again = parseNote(second.text);
        if (again.ok) {
          second.call.parse = PARSED[again.how];
          return { note: again.note, call: second.call.id };
        }
        second.call.parse = `${again.reason}: the reply is kept as Reasoning with no Evidence`;
        noteStep.note(
          `Note ${i + 1}: no usable JSON after a retry; the reply became its Reasoning.`,
        );
        return { note: fallbackNote(second.text), call: second.call.id };
      }),
    );
    noteStep.done({ notes: notes.length });

    // 3. Filter: the rules, then the judge on the notes the rules keep.
    const filterStep = rec.step(
      'segment.filter',
      settings.llmJudge
        ? 'Filter the notes (rules, then the LLM judge)'
        : 'Filter the notes (rules)',
    );
    const verdicts = await Promise.all(
      notes.map(async ({ note, call: noteCall }) => {
        const rule = ruleFilter(note);
        if (rule) return { keep: false, reason: `rule: ${rule}`, call: noteCall };
        if (!settings.llmJudge) return { keep: true, reason: 'passes the rules', call: noteCall };
        const judged = await call(
          filterStep,
          'segment.judge',
          judgePrompt(serializeNote(note), question),
          8,
          [noteCall],
        );
        const j = parseJudge(judged.text);
        judged.call.parse = j.clear ? (j.keep ? 'Keep' : 'Remove') : 'unclear reply: kept';
        return {
          keep: j.keep,
          reason: j.clear ? `judge: ${j.keep ? 'Keep' : 'Remove'}` : 'judge unclear: kept',
          call: judged.call.id,
        };
      }),
    );
    const graph: TraceGraph = { kind: 'merge-tree', nodes: [], edges: [] };
    let entries: Entry[] = [];
    const lastCall = new Map<string, number>();
    for (let i = 0; i < notes.length; i++) {
      const note = notes[i].note;
      const text = serializeNote(note);
      rec.item({
        id: `note:${i}`,
        kind: 'note',
        stepId: filterStep.id,
        label: `note ${i + 1} (segment ${i + 1})`,
        text,
        fragments: segments[i].fragments,
        verdict: verdicts[i].keep ? 'kept' : 'dropped',
        reason: verdicts[i].reason,
      });
      graph.nodes.push({
        id: `note:${i}`,
        label: `note ${i + 1}`,
        group: verdicts[i].keep ? 'kept' : 'dropped',
      });
      if (verdicts[i].keep) {
        entries.push({ id: `note:${i}`, note, segments: [i], tokens: await count(text) });
        lastCall.set(`note:${i}`, verdicts[i].call);
      }
    }
    filterStep.done({ kept: entries.length, removed: notes.length - entries.length });

    // 4. Merge in rounds until the notes fit the answer's window.
    const total = (list: Entry[]) => list.reduce((s, e) => s + e.tokens, 0);
    for (let round = 1; total(entries) > sizes.answerBudget; round++) {
      if (round > settings.maxRounds) {
        rec.trace.steps
          .at(-1)!
          .notes.push(`Stopped after ${settings.maxRounds} rounds (the round cap).`);
        break;
      }
      const step = rec.step(`segment.merge.${round}`, `Merge round ${round}`, {
        notes: entries.length,
        tokens: total(entries),
      });
      // A note alone over the batch limit has its Evidence cut (a guard the paper does not need).
      for (const e of entries) {
        if (e.tokens <= sizes.batchTokens) continue;
        const reasoning = await count(`Reasoning: ${e.note.reasoning}`);
        const cut = await cutToTokens(
          llm,
          e.note.evidence,
          Math.max(1, sizes.batchTokens - reasoning - 4),
          rec.signal,
        );
        e.note = { ...e.note, evidence: cut.text };
        e.tokens = await count(serializeNote(e.note));
        step.note(`${e.id}: Evidence cut to fit one batch.`);
      }
      const batches: Entry[][] = [];
      let batch: Entry[] = [];
      let used = 0;
      for (const e of entries) {
        if (batch.length && used + e.tokens > sizes.batchTokens) {
          batches.push(batch);
          batch = [];
          used = 0;
        }
        batch.push(e);
        used += e.tokens;
      }
      if (batch.length) batches.push(batch);
      if (batches.every((b) => b.length === 1)) {
        step.note('Every batch holds one note: merging cannot shrink the notes further.');
        step.done({ batches: batches.length, merged: 0 });
        break;
      }
      const merged = await Promise.all(
        batches.map(async (b, j): Promise<Entry> => {
          // A batch of one is carried over as it is: merging it with nothing is not a merge.
          if (b.length === 1) return b[0];
          const id = `merge:${round}.${j}`;
          const reply = await call(
            step,
            'segment.merge',
            mergePrompt(
              b.map((e) => serializeNote(e.note)),
              question,
              byModel,
              settings.noteFormat,
            ),
            sizes.noteTokens,
            b.map((e) => lastCall.get(e.id)!).filter((c) => c !== undefined),
          );
          const parsed = parseNote(reply.text);
          const concatenated = b
            .map((e) => e.note.evidence.trim())
            .filter(Boolean)
            .join('\n');
          let note: Note;
          if (parsed.ok) {
            reply.call.parse = PARSED[parsed.how];
            note = byModel
              ? parsed.note
              : { evidence: concatenated, reasoning: parsed.note.reasoning };
          } else {
            reply.call.parse = `${parsed.reason}: the batch's notes were concatenated`;
            note = {
              evidence: concatenated,
              reasoning: b.map((e) => e.note.reasoning.trim()).join(' '),
            };
          }
          lastCall.set(id, reply.call.id);
          const text = serializeNote(note);
          graph.nodes.push({ id, label: `round ${round}, merge ${j + 1}`, group: 'merged' });
          for (const e of b) graph.edges.push({ from: e.id, to: id });
          rec.item({
            id,
            kind: 'note',
            stepId: step.id,
            label: `merged note (round ${round}, batch ${j + 1} of ${b.length} notes)`,
            text,
            fragments: b.flatMap((e) => e.segments.flatMap((s) => segments[s].fragments)),
            verdict: 'kept',
            reason: `merges ${b.map((e) => e.id).join(', ')}`,
          });
          return { id, note, segments: b.flatMap((e) => e.segments), tokens: await count(text) };
        }),
      );
      const before = total(entries);
      const after = total(merged);
      step.done({ batches: batches.length, tokens: after });
      if (after >= before) {
        step.note(
          `The round did not shrink the notes (${before} -> ${after} tokens): stopped, keeping the notes before it.`,
        );
        break;
      }
      entries = merged;
    }

    // 5. The answer from the merged notes alone.
    const answerStep = rec.step('segment.answer', 'Answer from the notes');
    const sizesOf = await countEach(
      llm,
      entries.map((e, i) => `[${i + 1}]\n${serializeNote(e.note)}`),
      rec.signal,
    );
    const packed = packInOrder(sizesOf, sizes.answerBudget, 1);
    if (packed.dropped.length)
      answerStep.note(
        `${packed.dropped.length} notes left out: over the ${sizes.answerBudget}-token answer budget.`,
      );
    const given = packed.kept.map((i) => entries[i]);
    if (!given.length) answerStep.note('No note was kept: the model is told the notes are empty.');
    const { text } = await rec.call(answerStep, {
      tag: 'segment.answer',
      messages: userMessage(
        answerPrompt(
          given.length ? given.map((e) => serializeNote(e.note)) : ['(no note was kept)'],
          question,
        ),
      ),
      maxTokens: settings.answerTokens,
      temperature: settings.temperature,
      after: given.map((e) => lastCall.get(e.id)!).filter((c) => c !== undefined),
      onToken: input.onAnswerToken,
    });
    for (const e of given) graph.edges.push({ from: e.id, to: 'answer' });
    graph.nodes.push({ id: 'answer', label: 'answer', group: 'answer' });
    rec.graph(graph);
    const verbatim = given.map((e) => quotedFragment(library, e, segments));
    const found = verbatim.filter((v) => v.verbatim).length;
    answerStep.done({ notes: given.length, evidenceFoundVerbatim: `${found} of ${given.length}` });
    const citations: PipelineCitation[] = given.map((e, i) => ({
      label: i + 1,
      index: verbatim[i].index,
      location: fragmentLocation(library, verbatim[i].index),
    }));
    return { answer: text, citations };
  });
};

/**
 * The fragment a note's citation opens: the first of its fragments that contains one of its
 * Evidence quotes verbatim (a faithfulness check, PIPELINES.md 4.5), else its first fragment.
 */
function quotedFragment(
  library: PipelineLibrary,
  entry: Entry,
  segments: Segment[],
): { index: number; verbatim: boolean } {
  const fragments = entry.segments.flatMap((s) => segments[s].fragments);
  const quotes = entry.note.evidence
    .split(/\n|(?<=[.!?])\s+/)
    .map((q) => q.trim().replace(/^["'“”]+|["'“”]+$/g, ''))
    .filter((q) => q.length >= 20);
  for (const q of quotes)
    for (const f of fragments)
      if (fragmentText(library, f).includes(q)) return { index: f, verbatim: true };
  return { index: fragments[0] ?? 0, verbatim: false };
}
