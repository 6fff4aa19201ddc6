/**
 * @file The tune / held-out split of an evaluation set, fixed before anything is tuned: a
 * question goes to 'tune' when the FNV-1a hash of its stable id is even, else to 'heldout'.
 * Depends on the id alone (not on order, sample size or seed), so adding questions never moves
 * old ones between the halves.
 */

export type SplitPart = 'tune' | 'heldout';

/** FNV-1a, 32 bits, over the UTF-16 code units of `text`. */
export function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

/** Which half a question with this id belongs to. */
export function splitOf(id: string): SplitPart {
  return fnv1a(id) % 2 === 0 ? 'tune' : 'heldout';
}
