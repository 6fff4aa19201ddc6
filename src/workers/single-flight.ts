/**
 * @file One pending promise per key: callers that ask for a key while its work is pending share
 * that work instead of starting it again. The retrieval worker builds a run this way, so a
 * question asked while the code view's `prepare` is still reading the repository waits for the
 * same run (and its BM25 index and multi-hop graph) instead of building a second one.
 */
export class SingleFlight<T> {
  private readonly pending = new Map<string, Promise<T>>();

  run(key: string, make: () => Promise<T>): Promise<T> {
    const held = this.pending.get(key);
    if (held) return held;
    const settle = () => {
      if (this.pending.get(key) === started) this.pending.delete(key);
    };
    const started: Promise<T> = make().finally(settle);
    this.pending.set(key, started);
    return started;
  }

  /** Forget every pending key (the work goes on; later callers start anew). */
  clear(): void {
    this.pending.clear();
  }
}
