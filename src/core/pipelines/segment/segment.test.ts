import { describe, expect, it } from 'vitest';
import { fakeLlm, libraryOf, testSignal, type FakeCall, type FakeLlmOptions } from '../testing';
import type { PipelineLibrary } from '../types';
import {
  defaultSegmentSettings,
  segmentLibrary,
  segmentPipeline,
  segmentSizes,
  type SegmentSettings,
} from './index';
import {
  fallbackNote,
  parseJudge,
  parseJudgeScore,
  parseNote,
  ruleFilter,
  serializeNote,
} from './notes';

const QUESTION = 'Which city was the inventor born in?';

/** Twelve paragraphs of 20 words each, in two documents (8 + 4). */
function library(): PipelineLibrary {
  const para = (i: number) =>
    `Paragraph ${i} says the inventor number ${i} was born in city ${i} and later moved far away to work on engines.`;
  const a = Array.from({ length: 8 }, (_, i) => para(i)).join('\n\n');
  const b = Array.from({ length: 4 }, (_, i) => para(8 + i)).join('\n\n');
  return libraryOf(
    [
      { name: 'a.txt', text: a },
      { name: 'b.txt', text: b },
    ],
    QUESTION,
  );
}

const segmentOf = (call: FakeCall) =>
  /Document part:\n([\s\S]*?)\n\nQuestion:/.exec(call.prompt)![1];

/** A note quoting the segment's first sentence. */
const noteReply = (call: FakeCall) =>
  JSON.stringify({ Evidence: segmentOf(call).split('\n')[0], Reasoning: 'It names a birthplace.' });

/** A merged note shorter than its parts: the first quote of the batch and a short reasoning. */
const mergeReply = (call: FakeCall) => {
  const first = /Evidence: ([^\n]*)/.exec(call.prompt)![1];
  return JSON.stringify({ Evidence: first, Reasoning: 'Merged.' });
};

async function run(settings: Partial<SegmentSettings>, options: FakeLlmOptions = {}) {
  const llm = fakeLlm({
    concurrency: 3,
    contextLimit: 4096,
    script: {
      'segment.note': noteReply,
      'segment.judge': 'Keep',
      'segment.merge': mergeReply,
      'segment.answer': 'City 0 [1].',
    },
    ...options,
  });
  const out = await segmentPipeline({
    question: QUESTION,
    library: library(),
    llm,
    settings: { ...defaultSegmentSettings, ...settings },
    signal: testSignal().signal,
    clock: llm.clock,
  });
  return { llm, out, tags: llm.calls.map((c) => c.tag) };
}

const countTag = (tags: string[], tag: string) => tags.filter((t) => t === tag).length;

describe('notes', () => {
  it('parses, repairs, and refuses what has no note', () => {
    expect(parseNote('{"Evidence": "a", "Reasoning": "b"}')).toEqual({
      ok: true,
      how: 'json',
      note: { evidence: 'a', reasoning: 'b' },
    });
    expect(
      parseNote('Sure! ```json\n{"Evidence": "a", "Reasoning": "b"}\n``` Hope it helps'),
    ).toMatchObject({ ok: true, how: 'json' });
    expect(parseNote("{'Evidence': 'a', 'Reasoning': 'b',}")).toEqual({
      ok: true,
      how: 'repaired',
      note: { evidence: 'a', reasoning: 'b' },
    });
    expect(parseNote('{"Evidence": "a quote", "Reasoning": "cut off')).toEqual({
      ok: true,
      how: 'repaired',
      note: { evidence: 'a quote', reasoning: 'cut off' },
    });
    expect(parseNote('{"evidence": ["x", "y"]}')).toEqual({
      ok: true,
      how: 'json',
      note: { evidence: 'x\ny', reasoning: '' },
    });
    expect(parseNote('No JSON here.')).toEqual({
      ok: false,
      reason: 'no JSON object in the reply',
    });
    expect(parseNote('{"answer": 3}')).toMatchObject({ ok: false });
    // Labelled lines (the 'lines' format, or a model that ignored the JSON request).
    expect(
      parseNote('Evidence: \n"ORANGE MARMALADE" was on the label.\nReasoning: It is the label.'),
    ).toEqual({
      ok: true,
      how: 'lines',
      note: { evidence: '"ORANGE MARMALADE" was on the label.', reasoning: 'It is the label.' },
    });
    expect(parseNote('**Evidence:** a quote')).toEqual({
      ok: true,
      how: 'lines',
      note: { evidence: 'a quote', reasoning: '' },
    });
    expect(parseNote('- "evidence": a quote')).toEqual({
      ok: true,
      how: 'lines',
      note: { evidence: 'a quote', reasoning: '' },
    });
    expect(fallbackNote(' raw ')).toEqual({ evidence: '', reasoning: 'raw' });
  });
  it('the rule filter removes empty evidence and "no information" reasoning', () => {
    expect(ruleFilter({ evidence: ' ', reasoning: 'x' })).toBe('no evidence');
    expect(
      ruleFilter({ evidence: 'q', reasoning: 'This part does not contain the answer.' }),
    ).toMatch(/no information/);
    expect(ruleFilter({ evidence: 'q', reasoning: 'There is no relevant information.' })).toMatch(
      /no information/,
    );
    expect(ruleFilter({ evidence: 'q', reasoning: 'The city is named.' })).toBeNull();
  });
  it('parses the judge and the evaluation score', () => {
    expect(parseJudge('Keep')).toEqual({ keep: true, clear: true });
    expect(parseJudge('remove.')).toEqual({ keep: false, clear: true });
    expect(parseJudge('Hmm')).toEqual({ keep: true, clear: false });
    expect(parseJudgeScore('Complete and fluent. Score = 85')).toBe(85);
    expect(parseJudgeScore('no score')).toBeNull();
    expect(serializeNote({ evidence: ' e ', reasoning: 'r' })).toBe('Evidence: e\nReasoning: r');
  });
});

describe('segmentLibrary', () => {
  it('packs whole fragments in order within the budget, never across documents', async () => {
    const llm = fakeLlm();
    const lib = library();
    const segments = await segmentLibrary(lib, llm, 45);
    // 20-word fragments: two per segment; document a has 8, b has 4.
    expect(segments.map((s) => s.fragments)).toEqual([
      [0, 1],
      [2, 3],
      [4, 5],
      [6, 7],
      [8, 9],
      [10, 11],
    ]);
    for (const s of segments) expect(s.tokens).toBeLessThanOrEqual(45);
    expect(new Set(segments.map((s) => s.docId)).size).toBe(2);
    const cut = await segmentLibrary(lib, llm, 10);
    expect(cut).toHaveLength(12);
    expect(cut.every((s) => s.cut && s.tokens <= 10)).toBe(true);
  });
  it('sizes for a 4K and a 2K window (PIPELINES.md section 8)', () => {
    const frames = { note: 400, merge: 300, answer: 150 };
    expect(segmentSizes(4096, defaultSegmentSettings, frames)).toEqual({
      segmentTokens: 2500,
      noteTokens: 768,
      batchTokens: 4096 - 300 - 768 - 200,
      answerBudget: 4096 - 150 - 128 - 200,
    });
    expect(segmentSizes(2048, defaultSegmentSettings, frames).segmentTokens).toBe(1000);
    expect(segmentSizes(2048, defaultSegmentSettings, frames).noteTokens).toBe(384);
  });
});

describe('segmentPipeline', () => {
  it('no merge when the notes fit: n notes + n judges + 1 answer', async () => {
    const { out, tags, llm } = await run({ segmentTokens: 45 });
    expect(out.status).toBe('done');
    expect(tags).toHaveLength(6 + 6 + 1);
    expect(llm.maxConcurrent).toBe(3);
    const answer = llm.calls.at(-1)!;
    expect(answer.prompt).toContain('Evidence: Paragraph 0 says');
    // The answer reads the notes alone, not the segments.
    expect(answer.prompt).not.toContain('Paragraph 1 says');
    expect(out.citations[0]).toMatchObject({ label: 1, index: 0 });
    expect(out.trace.steps.find((s) => s.id === 'segment.answer')!.output).toMatchObject({
      evidenceFoundVerbatim: '6 of 6',
    });
  });

  it('asks for notes and merges as lines in the "lines" format, and reads them', async () => {
    const lines = (call: FakeCall) =>
      `Evidence: ${segmentOf(call).split('\n')[0]}\nReasoning: It names a birthplace.`;
    const { out, llm } = await run(
      { segmentTokens: 45, noteFormat: 'lines', mergeBatchTokens: 60, answerNotesTokens: 40 },
      {
        script: {
          'segment.note': lines,
          'segment.judge': 'Keep',
          'segment.merge': (c) =>
            `Evidence: ${/Evidence: ([^\n]*)/.exec(c.prompt)![1]}\nReasoning: Merged.`,
          'segment.answer': 'City 0 [1].',
        },
      },
    );
    expect(out.status).toBe('done');
    const notes = llm.calls.filter((c) => c.tag === 'segment.note');
    expect(notes[0].prompt).toContain('Write the note as two lines:');
    expect(notes[0].prompt).not.toContain('JSON');
    const merges = llm.calls.filter((c) => c.tag === 'segment.merge');
    expect(merges.length).toBeGreaterThan(0);
    expect(merges[0].prompt).not.toContain('JSON');
    const parses = out.trace.calls.filter(
      (c) => c.tag !== 'segment.judge' && c.tag !== 'segment.answer',
    );
    expect(parses.map((c) => c.parse)).toEqual(
      parses.map(() => 'read as Evidence and Reasoning lines'),
    );
    // The notes were kept (none fell back), and the answer reads their evidence.
    expect(llm.calls.at(-1)!.prompt).toContain('Evidence: Paragraph 0 says');
    // The answer is asked for in words: no bare "[1]" to copy.
    expect(llm.calls.at(-1)!.prompt).toContain('Write the answer itself in a few words');
    expect(llm.calls.at(-1)!.prompt).not.toContain('like [1]');
  });

  it('merges in rounds until the notes fit; calls match 4.3 formula; the merge tree is in the trace', async () => {
    // Notes are about 25 tokens; batches of 60 take 2; merged notes about 24; the answer takes 30.
    const { out, tags } = await run({
      segmentTokens: 45,
      mergeBatchTokens: 60,
      answerNotesTokens: 30,
    });
    expect(out.status).toBe('done');
    const rounds = out.trace.steps.filter((s) => s.id.startsWith('segment.merge.'));
    // 6 -> 3 -> 2 -> 1 notes: batches of two, the odd one carried over.
    expect(rounds.map((r) => r.input!.notes)).toEqual([6, 3, 2]);
    const merges = countTag(tags, 'segment.merge');
    expect(merges).toBe(3 + 1 + 1);
    expect(tags.length).toBe(6 + 6 + merges + 1);
    const graph = out.trace.graph!;
    expect(graph.kind).toBe('merge-tree');
    expect(graph.edges.filter((e) => e.to === 'merge:1.0').map((e) => e.from)).toEqual([
      'note:0',
      'note:1',
    ]);
    expect(graph.edges.filter((e) => e.to === 'answer')).toHaveLength(1);
    // Merges of one round run together, rounds one after another.
    const mergeCalls = out.trace.calls.filter((c) => c.tag === 'segment.merge');
    expect(mergeCalls[3].startMs!).toBeGreaterThanOrEqual(
      Math.max(...mergeCalls.slice(0, 3).map((c) => c.endMs!)),
    );
  });

  it('stops when a round does not shrink the notes, and at the round cap', async () => {
    const grow = (call: FakeCall) => JSON.stringify({ Evidence: call.prompt, Reasoning: 'longer' });
    const flat = await run(
      { segmentTokens: 45, mergeBatchTokens: 60, answerNotesTokens: 30 },
      {
        script: {
          'segment.note': noteReply,
          'segment.judge': 'Keep',
          'segment.merge': grow,
          'segment.answer': 'x',
        },
      },
    );
    expect(flat.out.status).toBe('done');
    expect(flat.out.trace.steps.filter((s) => s.id.startsWith('segment.merge.'))).toHaveLength(1);
    expect(flat.out.trace.steps.find((s) => s.id === 'segment.merge.1')!.notes.join(' ')).toMatch(
      /did not shrink/,
    );
    // The answer was given the notes before the round, as many as fit.
    expect(flat.llm.calls.at(-1)!.prompt).toContain('Evidence: Paragraph 0 says');

    const capped = await run({
      segmentTokens: 45,
      mergeBatchTokens: 60,
      answerNotesTokens: 1,
      maxRounds: 2,
    });
    expect(capped.out.trace.steps.filter((s) => s.id.startsWith('segment.merge.'))).toHaveLength(2);
    expect(capped.out.trace.steps.some((s) => s.notes.some((n) => /round cap/.test(n)))).toBe(true);
    expect(countTag(capped.tags, 'segment.merge')).toBe(3 + 1);
  });

  it('Option A concatenates the Evidence; the model writes only the Reasoning', async () => {
    const { llm, out } = await run(
      { segmentTokens: 45, mergeBatchTokens: 60, answerNotesTokens: 1000, evidenceMerge: 'A' },
      {
        script: {
          'segment.note': noteReply,
          'segment.judge': 'Keep',
          'segment.merge': '{"Reasoning": "Both name a city."}',
          'segment.answer': 'x',
        },
      },
    );
    expect(out.status).toBe('done');
    // 6 notes of ~25 tokens fit 1000: no merge at all.
    expect(llm.calls.some((c) => c.tag === 'segment.merge')).toBe(false);
    const merged = await run(
      { segmentTokens: 45, mergeBatchTokens: 60, answerNotesTokens: 100, evidenceMerge: 'A' },
      {
        script: {
          'segment.note': noteReply,
          'segment.judge': 'Keep',
          'segment.merge': '{"Reasoning": "Both name a city."}',
          'segment.answer': 'x',
        },
      },
    );
    const first = merged.out.trace.items.find((i) => i.id === 'merge:1.0')!;
    expect(first.text).toContain('Paragraph 0 says');
    expect(first.text).toContain('Paragraph 2 says');
    expect(first.text).toContain('Reasoning: Both name a city.');
    expect(merged.llm.calls.find((c) => c.tag === 'segment.merge')!.prompt).toContain(
      '"Reasoning"',
    );
  });

  it('a note that is not JSON is retried once, then falls back and is filtered out by the rules', async () => {
    const { out, tags } = await run(
      { segmentTokens: 45 },
      {
        script: {
          'segment.note': (c) =>
            segmentOf(c).startsWith('Paragraph 2 ') ? 'I cannot format this.' : noteReply(c),
          'segment.judge': 'Keep',
          'segment.answer': 'x',
        },
      },
    );
    expect(out.status).toBe('done');
    expect(countTag(tags, 'segment.note')).toBe(6 + 1);
    // The failed note was removed by the rules: 5 judges.
    expect(countTag(tags, 'segment.judge')).toBe(5);
    const note = out.trace.items.find((i) => i.id === 'note:1')!;
    expect(note).toMatchObject({ verdict: 'dropped', reason: 'rule: no evidence' });
    expect(out.trace.calls.filter((c) => c.tag === 'segment.note').map((c) => c.parse)).toContain(
      'no JSON object in the reply: the reply is kept as Reasoning with no Evidence',
    );
  });

  it('without the judge: n notes + 1 answer; Remove verdicts drop notes', async () => {
    expect((await run({ segmentTokens: 45, llmJudge: false })).tags).toHaveLength(6 + 1);
    const { out } = await run(
      { segmentTokens: 45 },
      {
        script: {
          'segment.note': noteReply,
          'segment.judge': ['Keep', 'Remove', 'Keep', 'Remove', 'Keep', 'Keep'],
          'segment.answer': 'x',
        },
      },
    );
    expect(
      out.trace.items.filter((i) => i.kind === 'note' && i.verdict === 'dropped'),
    ).toHaveLength(2);
    expect(out.citations).toHaveLength(4);
  });

  it('Stop during the notes stops them all and calls nothing more', async () => {
    const stop = testSignal();
    const llm = fakeLlm({
      concurrency: 2,
      script: { 'segment.note': noteReply, 'segment.judge': 'Keep', 'segment.answer': 'x' },
      ticks: (c) => {
        if (c.tag === 'segment.note' && c.tagIndex === 2) stop.abort();
        return 3;
      },
    });
    const out = await segmentPipeline({
      question: QUESTION,
      library: library(),
      llm,
      settings: { ...defaultSegmentSettings, segmentTokens: 45 },
      signal: stop.signal,
    });
    expect(out.status).toBe('stopped');
    expect(llm.calls.filter((c) => c.tag === 'segment.note')).toHaveLength(3);
    expect(llm.calls.some((c) => c.tag !== 'segment.note')).toBe(false);
  });
});
