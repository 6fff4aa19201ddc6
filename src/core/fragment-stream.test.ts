import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { sharedDatasetPath } from '../../test/glove';
import { JA_BOOK, TH_TEXT, ZH_TEXT } from '../../test/scripts/samples';
import { ProseSplitStream, splitProse, type ProseSpans } from './fragment';
import { prng } from './prng';

/**
 * ProseSplitStream: the text pushed in pieces cut anywhere gives exactly the fragments
 * splitProse gives on the whole text.
 */

function whole(text: string, wordsPerFragment: number): ProseSpans {
  const fragments = splitProse('d', text, { wordsPerFragment });
  return {
    starts: Uint32Array.from(fragments, (f) => f.start),
    ends: Uint32Array.from(fragments, (f) => f.end),
    words: Uint32Array.from(fragments, (f) => f.words ?? 0),
  };
}

function streamed(pieces: Iterable<string>, wordsPerFragment: number): ProseSpans {
  const splitter = new ProseSplitStream({ wordsPerFragment });
  for (const piece of pieces) splitter.push(piece);
  return splitter.finish();
}

/** `text` cut at the given offsets. */
function* cutAt(text: string, cuts: number[]): Generator<string> {
  let from = 0;
  for (const at of [...cuts].sort((a, b) => a - b)) {
    yield text.slice(from, at);
    from = at;
  }
  yield text.slice(from);
}

/** `text` in pieces of random length 1..max (some empty pieces too). */
function* randomPieces(text: string, max: number, seed: number): Generator<string> {
  const random = prng(seed);
  for (let from = 0; from < text.length;) {
    if (random() < 0.02) yield '';
    const to = Math.min(text.length, from + 1 + Math.floor(random() * max));
    yield text.slice(from, to);
    from = to;
  }
}

const bookPath = (name: string) => sharedDatasetPath('gutenberg', name);
const book = (name: string) => readFileSync(bookPath(name), 'utf8').replace(/\r\n?/g, '\n');

describe('ProseSplitStream', () => {
  it('splits War and Peace in random pieces as splitProse does', () => {
    const text = book('pg2600_war_and_peace.txt');
    for (const wordsPerFragment of [500, 7]) {
      const expected = whole(text, wordsPerFragment);
      expect(expected.starts.length).toBeGreaterThan(text.length / (12 * wordsPerFragment));
      for (const [max, seed] of [
        [65536, 1],
        [97, 3],
      ]) {
        expect(streamed(randomPieces(text, max, seed), wordsPerFragment)).toEqual(expected);
      }
    }
  });

  it('cuts mid-word, in the gap before a blank line, after a full stop, between two line feeds', () => {
    const text = book('pg11.txt');
    const midWord = text.indexOf('Rabbit') + 3;
    const blank = text.indexOf('\n\n', 5000);
    const stop = text.indexOf('. ', 9000) + 1;
    const cuts = [midWord, blank, blank + 1, stop, stop + 1, text.length - 1];
    for (const wordsPerFragment of [500, 50, 3]) {
      const expected = whole(text, wordsPerFragment);
      expect(streamed(cutAt(text, cuts), wordsPerFragment)).toEqual(expected);
      // One character at a time: every boundary at once.
      expect(streamed(text.slice(0, 30_000), wordsPerFragment)).toEqual(
        whole(text.slice(0, 30_000), wordsPerFragment),
      );
    }
  });

  it('splits Japanese, Chinese and Thai (words from ICU inside runs) cut anywhere', () => {
    for (const text of [
      JA_BOOK,
      ZH_TEXT,
      TH_TEXT,
      `${JA_BOOK}\n\nMr. Smith said 「はい」. Done.`,
    ]) {
      for (const wordsPerFragment of [200, 20, 1]) {
        const expected = whole(text, wordsPerFragment);
        expect(streamed(text, wordsPerFragment)).toEqual(expected);
        expect(streamed(randomPieces(text, 50, 7), wordsPerFragment)).toEqual(expected);
      }
    }
  });

  it('agrees on the edge cases: empty, white space only, one word, a run with no space', () => {
    for (const text of ['', '   \n\n  ', 'word', '  lead and trail.  ', 'x'.repeat(5000)]) {
      const expected = whole(text, 3);
      expect(streamed(text, 3)).toEqual(expected);
      expect(streamed(randomPieces(text, 3, 11), 3)).toEqual(expected);
    }
    expect(streamed([], 3).starts.length).toBe(0);
  });
});
