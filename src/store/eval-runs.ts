/**
 * @file Evaluation runs and their partial results (schema v7). Results are written
 * per question as the grid produces them, so a closed tab keeps every question finished before
 * it, and a resumed run skips them. Written from the evaluation worker and read by the page, on
 * their own connections to the same library database.
 */
import type { AnswerResult } from '../core/eval/answer-run';
import { isQuotaExceeded, StoreError } from './errors';
import type { EvalResultRecord, EvalRunRecord, LibraryDb } from './schema';

/** Every `[runId, ...]` key of one run (arrays sort after strings, so `[runId, []]` is above). */
function runRange(runId: string): IDBKeyRange {
  return IDBKeyRange.bound([runId], [runId, []]);
}

async function guarded<T>(what: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (isQuotaExceeded(error)) {
      throw new StoreError(
        'quota',
        `The browser has no room left to keep ${what}. Delete older evaluation runs or documents, then resume.`,
        { cause: error },
      );
    }
    throw error;
  }
}

export function putEvalRun(db: LibraryDb, run: EvalRunRecord): Promise<void> {
  return guarded('this evaluation run', async () => {
    await db.put('evalRuns', run);
  });
}

export function getEvalRun(db: LibraryDb, id: string): Promise<EvalRunRecord | undefined> {
  return db.get('evalRuns', id);
}

/** Every run, newest first. */
export async function listEvalRuns(db: LibraryDb): Promise<EvalRunRecord[]> {
  const runs = await db.getAll('evalRuns');
  return runs.sort((a, b) => b.createdAt - a.createdAt);
}

/** Change a run's status (and error) if it still exists; returns the updated run. */
export async function setEvalRunStatus(
  db: LibraryDb,
  id: string,
  status: EvalRunRecord['status'],
  error?: string,
): Promise<EvalRunRecord | undefined> {
  const tx = db.transaction('evalRuns', 'readwrite');
  const run = await tx.store.get(id);
  if (!run) {
    await tx.done;
    return undefined;
  }
  const next: EvalRunRecord = { ...run, status, updatedAt: Date.now() };
  if (error === undefined) delete next.error;
  else next.error = error;
  await tx.store.put(next);
  await tx.done;
  return next;
}

/**
 * Store one question's results in one transaction, only while their run exists (a run deleted
 * meanwhile gets nothing written). Returns whether they were written.
 */
export function putEvalResults(
  db: LibraryDb,
  results: readonly EvalResultRecord[],
): Promise<boolean> {
  return guarded('these evaluation results', async () => {
    if (results.length === 0) return true;
    const tx = db.transaction(['evalRuns', 'evalResults'], 'readwrite');
    const runIds = [...new Set(results.map((r) => r.runId))];
    for (const id of runIds) {
      if ((await tx.objectStore('evalRuns').getKey(id)) === undefined) {
        tx.abort();
        await tx.done.catch(() => undefined);
        return false;
      }
    }
    await Promise.all(results.map((r) => tx.objectStore('evalResults').put(r)));
    await tx.done;
    return true;
  });
}

export function listEvalResults(db: LibraryDb, runId: string): Promise<EvalResultRecord[]> {
  return db.getAll('evalResults', runRange(runId));
}

export function countEvalResults(db: LibraryDb, runId: string): Promise<number> {
  return db.count('evalResults', runRange(runId));
}

/** Delete a run and all its results in one transaction. */
export async function deleteEvalRun(db: LibraryDb, id: string): Promise<void> {
  const tx = db.transaction(['evalRuns', 'evalResults'], 'readwrite');
  await Promise.all([
    tx.objectStore('evalRuns').delete(id),
    tx.objectStore('evalResults').delete(runRange(id)),
  ]);
  await tx.done;
}

/** A stored answer of an answer run, with when it was computed. */
export type StoredAnswer = AnswerResult & { computedAt: number };

/**
 * Store one answer of an answer run (keyed by its pipeline and question) in one transaction,
 * only while the run exists: a resumed run finds it and does not ask that pair again.
 */
export function putAnswerResult(
  db: LibraryDb,
  runId: string,
  result: AnswerResult,
  computedAt = Date.now(),
): Promise<boolean> {
  return putEvalResults(db, [
    {
      runId,
      config: result.pipeline,
      question: result.question,
      gold: [],
      answer: [],
      llm: result,
      computedAt,
    },
  ]);
}

/** The stored answers of an answer run (records without an answer are not answers). */
export async function listAnswerResults(db: LibraryDb, runId: string): Promise<StoredAnswer[]> {
  const records = await listEvalResults(db, runId);
  return records.flatMap((r) => (r.llm ? [{ ...r.llm, computedAt: r.computedAt }] : []));
}
