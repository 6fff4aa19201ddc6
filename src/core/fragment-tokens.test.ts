/**
 * fragmentTokens against tokenize of each fragment on real texts: this folder's code split into
 * overlapping 20-line windows (the case it is for), War and Peace in prose fragments (cuts inside
 * lines: tokenized whole), and texts in scripts written without spaces (segmented whole).
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { sharedDatasetPath } from '../../test/glove';
import { JA_BOOK, TH_TEXT, ZH_TEXT } from '../../test/scripts/samples';
import { layoutRepository, repositoryWindows } from './code/layout';
import { splitCode, splitProse } from './fragment';
import { bm25IndexOfPieces, buildBm25Index } from './bm25';
import { fragmentPieces, fragmentTokens } from './fragment-tokens';
import { tokenize } from './tokenize';

function expectSameAsWhole(source: string, starts: number[], ends: number[]) {
  const got = fragmentTokens(source, starts, ends);
  expect(got.length).toBe(starts.length);
  for (let i = 0; i < starts.length; i++) {
    expect(got[i]).toEqual(tokenize(source.slice(starts[i], ends[i])));
  }
}

describe('fragmentTokens', () => {
  it("equals tokenize per window on a repository's overlapping code windows", () => {
    const dir = path.resolve('src/core');
    const files = readdirSync(dir)
      .filter((n) => n.endsWith('.ts'))
      .sort()
      .map((n) => ({ path: `core/${n}`, text: readFileSync(path.join(dir, n), 'utf8') }));
    const layout = layoutRepository(files);
    const { fragments } = repositoryWindows('r', layout);
    expect(fragments.length).toBeGreaterThan(400);
    const starts = fragments.map((f) => f.start);
    const ends = fragments.map((f) => f.end);
    expectSameAsWhole(layout.text, starts, ends);
    // The BM25 index from the pieces is the index from every window tokenized whole.
    const p = fragmentPieces(layout.text, starts, ends);
    expect(p.pieces.length).toBeLessThan(fragments.length * 1.1);
    expect(bm25IndexOfPieces(p.pieces, p.pieceStart, p.pieceIds)).toEqual(
      buildBm25Index(fragments.map((f) => tokenize(layout.text.slice(f.start, f.end)))),
    );
  });

  it('equals tokenize per fragment on prose cut inside lines (War and Peace)', () => {
    const text = readFileSync(
      sharedDatasetPath('gutenberg/pg2600_war_and_peace.txt'),
      'utf8',
    ).slice(0, 400_000);
    const fragments = splitProse('wp', text, { wordsPerFragment: 100 });
    expectSameAsWhole(
      text,
      fragments.map((f) => f.start),
      fragments.map((f) => f.end),
    );
  });

  it('tokenizes whole the windows holding a script without spaces, and odd spans', () => {
    const text = ['function a() {}', JA_BOOK, 'const b = 1;', ZH_TEXT, TH_TEXT, 'x'].join('\n');
    const windows = splitCode('d', text, { windowLines: 4, windowStride: 2 });
    const starts = windows.map((w) => w.start);
    const ends = windows.map((w) => w.end);
    // An empty span, a reversed one, one cut mid-word, and the same window twice.
    starts.push(3, 10, 5, starts[0]);
    ends.push(3, 4, 17, ends[0]);
    expectSameAsWhole(text, starts, ends);
    expect(fragmentTokens('', [], [])).toEqual([]);
  });
});
