/**
 * @file Document segments of a retrieval run. A run may span several documents; their
 * fragments lie contiguously, document after document, and `segments` holds the start offset
 * of each document plus N at the end: [0, n1, n1 + n2, ..., N]. Relations hold only inside a
 * document (DESIGN.md section 2), so every relation builder walks these segments.
 */
import type { Fragment } from '../types';

/** Check the segment offsets and return them as a Uint32Array; N is the last entry. */
export function toSegments(segments: ArrayLike<number>): Uint32Array {
  if (segments.length < 1 || segments[0] !== 0) {
    throw new Error(
      'FragRel: document segments must start with 0 and end with N, e.g. [0, n1, n1 + n2, N].',
    );
  }
  const out = new Uint32Array(segments.length);
  for (let s = 0; s < segments.length; s++) {
    const v = segments[s];
    if (!Number.isInteger(v) || v < 0 || (s > 0 && v < segments[s - 1])) {
      throw new Error(
        `FragRel: document segment offsets must be whole numbers that never decrease; entry ${s} is ${v}.`,
      );
    }
    out[s] = v;
  }
  return out;
}

/** Segments for N fragments of a single document. */
export function singleDocument(count: number): Uint32Array {
  return Uint32Array.of(0, count);
}

/**
 * Segments for fragments laid out document after document. Throws when a document's fragments
 * are not contiguous, since relations would then wrongly link fragments across documents.
 */
export function segmentsFromFragments(fragments: readonly Fragment[]): Uint32Array {
  const offsets = [0];
  const seen = new Set<string>();
  for (let i = 0; i < fragments.length; i++) {
    const docId = fragments[i].docId;
    if (i > 0 && docId === fragments[i - 1].docId) continue;
    if (seen.has(docId)) {
      throw new Error(
        `FragRel: fragments of document "${docId}" are not contiguous (again at index ${i}); lay out each document's fragments together.`,
      );
    }
    seen.add(docId);
    if (i > 0) offsets.push(i);
  }
  offsets.push(fragments.length);
  return Uint32Array.from(fragments.length === 0 ? [0] : offsets);
}

/** Index of the segment (document) holding fragment i, by binary search. */
export function segmentOf(segments: Uint32Array, i: number): number {
  let lo = 0;
  let hi = segments.length - 2;
  while (lo < hi) {
    const mid = (lo + hi + 1) >>> 1;
    if (segments[mid] <= i) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** Throw a readable error unless i is a fragment index of a run of `size` fragments. */
export function checkIndex(i: number, size: number): void {
  if (!Number.isInteger(i) || i < 0 || i >= size) {
    throw new Error(`FragRel: fragment index ${i} is outside the ${size} fragments of this run.`);
  }
}
