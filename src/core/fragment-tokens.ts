/**
 * @file The tokens of every fragment of a document, for the BM25 index (Eq. 4), without
 * tokenizing the same text twice. Code windows overlap by half (20 lines sliding by 10) and
 * each token list was the window's own `tokenize` call: a million-line repository tokenized
 * about twice its text at its first question.
 *
 * Here the text is cut at every fragment start and end that follows a line break ('\n' is never
 * part of a token, so no token spans such a cut), each piece between cuts is tokenized once, and
 * a fragment's tokens are its pieces' tokens in order: the same list as `tokenize` of the whole
 * fragment. A fragment whose start or end is not such a cut, or whose text holds a script
 * written without spaces (segmented by ICU over the whole text), is tokenized whole, as before.
 */
import { hasDenseScript } from './script/segment';
import { tokenize } from './tokenize';

/**
 * The fragments as token lists of pieces: fragment i's tokens are those of the pieces
 * `pieceIds[pieceStart[i]] ..` up to `pieceStart[i + 1]`, in order (bm25IndexOfPieces reads
 * this). A fragment tokenized whole is a piece of its own.
 */
export interface FragmentPieces {
  pieces: (readonly string[])[];
  pieceStart: Uint32Array;
  pieceIds: Uint32Array;
}

export function fragmentPieces(
  source: string,
  starts: ArrayLike<number>,
  ends: ArrayLike<number>,
): FragmentPieces {
  const count = starts.length;
  const cut = (at: number) =>
    at === 0 ||
    at === source.length ||
    (at > 0 && at < source.length && source.charCodeAt(at - 1) === 10);
  const cuts = new Set<number>();
  for (let i = 0; i < count; i++) {
    if (cut(starts[i]) && cut(ends[i]) && starts[i] < ends[i]) {
      cuts.add(starts[i]);
      cuts.add(ends[i]);
    }
  }
  const points = Float64Array.from(cuts).sort();
  const pointOf = new Map<number, number>();
  points.forEach((p, k) => pointOf.set(p, k));
  // piece k of the cut text (between points k and k + 1), numbered when first needed.
  const cutPiece = new Int32Array(Math.max(0, points.length - 1)).fill(-1);
  const dense: (boolean | undefined)[] = new Array(cutPiece.length);
  const pieces: (readonly string[])[] = [];
  const pieceStart = new Uint32Array(count + 1);
  const ids: number[] = [];
  for (let i = 0; i < count; i++) {
    const start = starts[i];
    const end = ends[i];
    const first = pointOf.get(start);
    const last = pointOf.get(end);
    let whole = first === undefined || last === undefined || !(start < end);
    for (let k = first ?? 0; !whole && k < last!; k++) {
      dense[k] ??= hasDenseScript(source, points[k], points[k + 1]);
      whole = dense[k]!;
    }
    if (whole) {
      ids.push(pieces.length);
      pieces.push(tokenize(source.slice(start, end)));
    } else {
      for (let k = first!; k < last!; k++) {
        if (cutPiece[k] < 0) {
          cutPiece[k] = pieces.length;
          pieces.push(tokenize(source.slice(points[k], points[k + 1])));
        }
        ids.push(cutPiece[k]);
      }
    }
    pieceStart[i + 1] = ids.length;
  }
  return { pieces, pieceStart, pieceIds: Uint32Array.from(ids) };
}

/** tokenize(source.slice(starts[i], ends[i])) for every i, sharing the work of overlaps. */
export function fragmentTokens(
  source: string,
  starts: ArrayLike<number>,
  ends: ArrayLike<number>,
): string[][] {
  const { pieces, pieceStart, pieceIds } = fragmentPieces(source, starts, ends);
  return Array.from({ length: starts.length }, (_, i) => {
    const tokens: string[] = [];
    for (let k = pieceStart[i]; k < pieceStart[i + 1]; k++) tokens.push(...pieces[pieceIds[k]]);
    return tokens;
  });
}
