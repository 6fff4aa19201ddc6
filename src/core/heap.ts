/**
 * @file Partial ranking without a full sort. Eq. 11 and the ranked list only ever need the
 * first few fragments by score, so we heapify all N indices in O(N) and pop as many as we need,
 * O(N + K log N) instead of O(N log N).
 *
 * Order everywhere in the core: higher score first, ties to the lower index, so every ranking
 * is deterministic. NaN ranks below every number (a NaN score is a bug upstream, but it must not
 * corrupt the heap's invariant).
 */

/** True when (scoreA, a) ranks before (scoreB, b): higher score, then lower index, NaN last. */
export function ranksBefore(scoreA: number, a: number, scoreB: number, b: number): boolean {
  if (scoreA > scoreB) return true;
  if (scoreA === scoreB) return a < b;
  // Neither is larger and they are not equal: at least one is NaN.
  if (scoreA !== scoreA) return scoreB !== scoreB && a < b;
  return scoreB !== scoreB;
}

/**
 * A max-heap of fragment indices keyed by `scores` (read, never copied or written). Built in
 * O(N) by bottom-up heapify; each `pop` is O(log N).
 */
export class RankHeap {
  private readonly scores: ArrayLike<number>;
  private readonly heap: Uint32Array;
  private length: number;

  /** Heap over `indices` (default: all of 0..scores.length-1). `indices` is taken over. */
  constructor(scores: ArrayLike<number>, indices?: Uint32Array) {
    this.scores = scores;
    if (indices) {
      this.heap = indices;
    } else {
      this.heap = new Uint32Array(scores.length);
      for (let i = 0; i < this.heap.length; i++) this.heap[i] = i;
    }
    this.length = this.heap.length;
    for (let p = (this.length >>> 1) - 1; p >= 0; p--) this.siftDown(p);
  }

  get size(): number {
    return this.length;
  }

  /** The best remaining index, or -1 when the heap is empty. */
  peek(): number {
    return this.length > 0 ? this.heap[0] : -1;
  }

  /** Remove and return the best remaining index, or -1 when the heap is empty. */
  pop(): number {
    if (this.length === 0) return -1;
    const top = this.heap[0];
    this.length--;
    if (this.length > 0) {
      this.heap[0] = this.heap[this.length];
      this.siftDown(0);
    }
    return top;
  }

  private siftDown(start: number): void {
    const heap = this.heap;
    const scores = this.scores;
    const n = this.length;
    const item = heap[start];
    const itemScore = scores[item];
    let pos = start;
    for (;;) {
      let child = 2 * pos + 1;
      if (child >= n) break;
      let childItem = heap[child];
      let childScore = scores[childItem];
      const right = child + 1;
      if (right < n) {
        const rightItem = heap[right];
        const rightScore = scores[rightItem];
        if (ranksBefore(rightScore, rightItem, childScore, childItem)) {
          child = right;
          childItem = rightItem;
          childScore = rightScore;
        }
      }
      if (!ranksBefore(childScore, childItem, itemScore, item)) break;
      heap[pos] = childItem;
      pos = child;
    }
    heap[pos] = item;
  }
}

/**
 * The `k` best indices by score, best first (ties to the lower index). O(N + k log N).
 * Used for the ranked list the UI shows, which may reach beyond the selected fragments.
 */
export function topK(scores: ArrayLike<number>, k: number): Uint32Array {
  const heap = new RankHeap(scores);
  const count = Math.max(0, Math.min(Math.floor(k), heap.size));
  const out = new Uint32Array(count);
  for (let r = 0; r < count; r++) out[r] = heap.pop();
  return out;
}

/**
 * The k-th largest value of `a` (1 <= k <= a.length), by quickselect: `a` is reordered in place,
 * so pass a copy. Used to cut rows to their strongest weights (core/code/relation.ts,
 * ingest/storable.ts).
 */
export function kthLargestInPlace(a: Float32Array | Float64Array, k: number): number {
  let lo = 0;
  let hi = a.length - 1;
  const target = k - 1;
  while (lo < hi) {
    const pivot = a[(lo + hi) >> 1];
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (a[i] > pivot) i++;
      while (a[j] < pivot) j--;
      if (i <= j) {
        const t = a[i];
        a[i] = a[j];
        a[j] = t;
        i++;
        j--;
      }
    }
    if (target <= j) hi = j;
    else if (target >= i) lo = i;
    else break;
  }
  return a[target];
}
