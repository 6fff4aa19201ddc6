import { describe, expect, it } from 'vitest';
import { loadGloveFromDisk } from '../../../test/glove';
import { JA_BOOK, ZH_TEXT } from '../../../test/scripts/samples';
import { embedTexts } from '../embed/static';
import { splitProse } from '../fragment';
import { chooseScoring, zeroRowShare } from './fallback';

describe('scoring falls back to BM25 where the embedder has no vectors', () => {
  const model = loadGloveFromDisk();

  function fragmentsOf(text: string): string[] {
    return splitProse('d', text, { wordsPerFragment: 40 }).map((f) => text.slice(f.start, f.end));
  }

  it('finds that the English GloVe vectors know nothing of a Japanese or Chinese book', () => {
    for (const text of [JA_BOOK, ZH_TEXT]) {
      const vectors = embedTexts(model, fragmentsOf(text));
      const share = zeroRowShare(vectors.data, vectors.dim);
      expect(share).toBe(1);
      const question = embedTexts(model, ['佐藤花子が毎朝最初に焼くパンは何ですか']).data;
      const choice = chooseScoring('dense', 'GloVe', share, question);
      expect(choice.scoring).toBe('bm25');
      expect(choice.notice).toMatch(/no word vectors for 100% of these fragments/);
    }
  });

  it('keeps dense scoring for English, and says so when only the question is unknown', () => {
    const english =
      'Natasha danced at her first ball. Pierre went to Moscow in the winter. '.repeat(20);
    const vectors = embedTexts(model, fragmentsOf(english));
    const share = zeroRowShare(vectors.data, vectors.dim);
    expect(share).toBe(0);
    const question = embedTexts(model, ['Where did Pierre go?']).data;
    expect(chooseScoring('dense', 'GloVe', share, question)).toEqual({ scoring: 'dense' });
    expect(chooseScoring('hybrid', 'GloVe', share, question)).toEqual({ scoring: 'hybrid' });
    const unknown = embedTexts(model, ['ピエールはどこへ行きましたか']).data;
    const choice = chooseScoring('hybrid', 'GloVe', share, unknown);
    expect(choice.scoring).toBe('bm25');
    expect(choice.notice).toMatch(/knows none of the question's words/);
    // BM25 asked for is BM25 used, without a notice.
    expect(chooseScoring('bm25', 'GloVe', 1, undefined)).toEqual({ scoring: 'bm25' });
  });

  it('measures the share of all-zero rows', () => {
    expect(zeroRowShare(new Float32Array([0, 0, 1, 0, 0, 0, 0, 0]), 2)).toBe(0.75);
    expect(zeroRowShare(new Float32Array(0), 4)).toBe(0);
  });
});
