import 'fake-indexeddb/auto';
import { IDBFactory } from 'fake-indexeddb';
import { describe, expect, it } from 'vitest';
import type { AnswerResult } from '../core/eval/answer-run';
import {
  countEvalResults,
  listAnswerResults,
  putAnswerResult,
  deleteEvalRun,
  getEvalRun,
  listEvalResults,
  listEvalRuns,
  putEvalResults,
  putEvalRun,
  setEvalRunStatus,
} from './eval-runs';
import { openLibrary } from './library';
import type { EvalRunRecord } from './schema';

const run = (id: string, createdAt = 1): EvalRunRecord => ({
  id,
  createdAt,
  updatedAt: createdAt,
  status: 'running',
  fileName: 'quality.jsonl',
  files: [{ name: 'quality.jsonl', text: '{}' }],
  spec: { configs: [] },
  settings: {},
});
const result = (runId: string, question: string, config = 'bm25|plain|f500') => ({
  runId,
  config,
  question,
  gold: [1, null],
  answer: [0.5, 1],
  computedAt: 5,
});

describe('evaluation runs (schema v7)', () => {
  it('keeps runs newest first and their results apart from other runs', async () => {
    const library = await openLibrary('e', { factory: new IDBFactory() });
    await putEvalRun(library.db, run('a', 1));
    await putEvalRun(library.db, run('b', 2));
    expect((await listEvalRuns(library.db)).map((r) => r.id)).toEqual(['b', 'a']);
    expect(await putEvalResults(library.db, [result('a', 'q1'), result('a', 'q2')])).toBe(true);
    expect(await putEvalResults(library.db, [result('b', 'q1')])).toBe(true);
    expect(await countEvalResults(library.db, 'a')).toBe(2);
    expect((await listEvalResults(library.db, 'b')).map((r) => r.question)).toEqual(['q1']);
    expect((await setEvalRunStatus(library.db, 'a', 'failed', 'No room.'))?.error).toBe('No room.');
    expect((await setEvalRunStatus(library.db, 'a', 'done'))?.error).toBeUndefined();
    expect((await getEvalRun(library.db, 'a'))?.status).toBe('done');
    expect(await setEvalRunStatus(library.db, 'ghost', 'done')).toBeUndefined();
    library.close();
  });

  it('writes no result for a run that was deleted, and deletes a run with its results', async () => {
    const library = await openLibrary('d', { factory: new IDBFactory() });
    await putEvalRun(library.db, run('a'));
    await putEvalRun(library.db, run('b'));
    await putEvalResults(library.db, [result('a', 'q1'), result('b', 'q1')]);
    await deleteEvalRun(library.db, 'a');
    expect(await getEvalRun(library.db, 'a')).toBeUndefined();
    expect(await countEvalResults(library.db, 'a')).toBe(0);
    expect(await countEvalResults(library.db, 'b')).toBe(1);
    expect(await putEvalResults(library.db, [result('a', 'q2')])).toBe(false);
    expect(await library.db.count('evalResults')).toBe(1);
    library.close();
  });
});

describe('answer runs in the evaluation stores', () => {
  const answer = (pipeline: string, question: string): AnswerResult => ({
    pipeline,
    question,
    status: 'done',
    answer: `${pipeline} on ${question}`,
    scores: { f1: 1, em: 1, contain: 1, letter: null },
    calls: 1,
    tokensIn: 100,
    tokensOut: 3,
  });

  it('stores each answer under its pipeline and question, and lists only answers', async () => {
    const library = await openLibrary('answers', { factory: new IDBFactory() });
    await putEvalRun(library.db, { ...run('r'), kind: 'answers' });
    expect(await putAnswerResult(library.db, 'r', answer('fragrel', 'q1'), 7)).toBe(true);
    expect(await putAnswerResult(library.db, 'r', answer('longrag', 'q1'), 8)).toBe(true);
    // The same pair again replaces it (one record per pair).
    expect(await putAnswerResult(library.db, 'r', answer('fragrel', 'q1'), 9)).toBe(true);
    await putEvalResults(library.db, [result('r', 'q9')]);
    const listed = await listAnswerResults(library.db, 'r');
    expect(listed.map((a) => [a.pipeline, a.question, a.computedAt])).toEqual([
      ['fragrel', 'q1', 9],
      ['longrag', 'q1', 8],
    ]);
    expect(listed[0].answer).toBe('fragrel on q1');
    expect((await getEvalRun(library.db, 'r'))?.kind).toBe('answers');
    // A deleted run takes its answers along and gets no new one.
    await deleteEvalRun(library.db, 'r');
    expect(await putAnswerResult(library.db, 'r', answer('fragrel', 'q2'))).toBe(false);
    expect(await library.db.count('evalResults')).toBe(0);
    library.close();
  });
});
