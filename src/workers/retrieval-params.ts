/**
 * @file Parameters under which relations are stored, shared by the UI (which stores them) and
 * the retrieval worker (which looks them up).
 */

/** The semantic relation depends on the embedder as well as on k. */
export function semanticParams(embedderId: string, k: number) {
  return { embedderId, k };
}
