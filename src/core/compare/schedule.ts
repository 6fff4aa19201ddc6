/**
 * @file When each column runs. Columns on one in-browser engine share one model in one worker,
 * which answers one call at a time: they run one after another, in column order, so each
 * column's wall time is its own and not a share of the model. Columns on API engines start at
 * once (each run still keeps its engine's concurrency limit).
 */

export interface ScheduledJob<T> {
  /** Jobs with the same lane run one after another; null: start at once. */
  lane: string | null;
  run: () => Promise<T>;
}

/**
 * Start every job by its lane; resolves, once all have ended, with each job's outcome in the
 * order given. A job that rejects does not hold up its lane: the next one starts.
 */
export function runScheduled<T>(
  jobs: ReadonlyArray<ScheduledJob<T>>,
): Promise<PromiseSettledResult<T>[]> {
  const tails = new Map<string, Promise<unknown>>();
  const started = jobs.map((job) => {
    if (job.lane === null) return job.run();
    const before = tails.get(job.lane) ?? Promise.resolve();
    const mine = before.then(job.run, job.run);
    tails.set(
      job.lane,
      mine.catch(() => undefined),
    );
    return mine;
  });
  return Promise.allSettled(started);
}
