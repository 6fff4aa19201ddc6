import { describe, expect, it } from 'vitest';
import { embedTexts } from '../embed/static';
import { loadGloveFromDisk } from '../../../test/glove';
import { sentencesOf, supportingSentences, type SentenceVectors } from './support';

// Alice in Wonderland, chapter VI (Project Gutenberg text, public domain).
const FRAGMENT =
  'The Cat only grinned when it saw Alice. It looked good-natured, she thought: still it had ' +
  'very long claws and a great many teeth, so she felt that it ought to be treated with ' +
  'respect. "Cheshire Puss," she began, rather timidly, as she did not at all know whether it ' +
  'would like the name. "Oh, you can\'t help that," said the Cat: "we\'re all mad here. I\'m ' +
  'mad. You\'re mad."';

describe('sentencesOf', () => {
  it('cuts a passage into its sentences, spans without surrounding spaces', () => {
    const s = sentencesOf(FRAGMENT);
    expect(s.length).toBeGreaterThanOrEqual(5);
    expect(FRAGMENT.slice(s[0].start, s[0].end)).toBe('The Cat only grinned when it saw Alice.');
    for (const x of s)
      expect(FRAGMENT.slice(x.start, x.end)).toBe(FRAGMENT.slice(x.start, x.end).trim());
  });
});

describe('supportingSentences', () => {
  it('marks the sentence that carries the claim, not the one that repeats the name', () => {
    const [best] = supportingSentences('The Cat says that everyone there is mad', FRAGMENT);
    expect(FRAGMENT.slice(best.start, best.end)).toContain("we're all mad here");
    const [claws] = supportingSentences('The Cat has long claws and many teeth', FRAGMENT);
    expect(FRAGMENT.slice(claws.start, claws.end)).toContain('very long claws');
  });

  it('marks nothing for a claim that shares no content word with the fragment', () => {
    expect(supportingSentences('Napoleon crossed the river at dawn', FRAGMENT)).toEqual([]);
    expect(supportingSentences('the and of', FRAGMENT)).toEqual([]);
  });

  it('marks a sentence that shares one word of a longer claim only as a weak match, alone', () => {
    // "Alice" is all "The Cat only grinned when it saw Alice." shares with this claim.
    const claim = 'The Queen shouted that Alice should lose her head at once';
    const out = supportingSentences(claim, FRAGMENT);
    expect(out).toHaveLength(1);
    expect(FRAGMENT.slice(out[0].start, out[0].end)).toBe(
      'The Cat only grinned when it saw Alice.',
    );
    expect(out[0].weak).toBe(true);
    // Two shared words make a match.
    const [claws] = supportingSentences('The Cat has long claws and many teeth', FRAGMENT);
    expect(claws.weak).toBe(false);
  });

  it('marks at most maxSentences, best first', () => {
    const out = supportingSentences('Alice Cat mad claws respect name', FRAGMENT, {
      maxSentences: 2,
      relative: 0,
    });
    expect(out).toHaveLength(2);
    expect(out[0].score).toBeGreaterThanOrEqual(out[1].score);
  });
});

describe('supportingSentences with GloVe sentence vectors (real vectors)', () => {
  const model = loadGloveFromDisk();
  /** What the reader passes: the claim's and each sentence's vector, from the offline embedder. */
  const vectorsFor = (claim: string, fragment: string): SentenceVectors => {
    const texts = sentencesOf(fragment).map((s) => fragment.slice(s.start, s.end));
    const set = embedTexts(model, [claim, ...texts]);
    return {
      claim: set.data.slice(0, set.dim),
      sentences: { dim: set.dim, count: texts.length, data: set.data.slice(set.dim) },
    };
  };
  const marked = (claim: string) =>
    supportingSentences(claim, FRAGMENT, {}, vectorsFor(claim, FRAGMENT)).map((s) =>
      FRAGMENT.slice(s.start, s.end),
    );

  it('marks a sentence that says the claim in other words', () => {
    // "smiled" for "grinned", "girl" for "Alice": no content word shared, so BM25 marks nothing.
    const claim = 'The animal smiled at the girl';
    expect(supportingSentences(claim, FRAGMENT)).toEqual([]);
    expect(marked(claim)[0]).toBe('The Cat only grinned when it saw Alice.');
  });

  it('puts first the sentence that means the claim where shared words nearly tie', () => {
    // BM25 puts "The Cat only grinned when it saw Alice." first (Alice, Cat: 2.92 against 2.89);
    // the sentence about claws and respect is the one that says it.
    const claim = 'Alice felt the Cat deserved respect because of its claws';
    const lexical = supportingSentences(claim, FRAGMENT).map((s) => FRAGMENT.slice(s.start, s.end));
    expect(lexical[0]).toBe('The Cat only grinned when it saw Alice.');
    const [best] = marked(claim);
    expect(best).toContain('very long claws');
    expect(best).toContain('respect');
  });

  it('still marks nothing for an unrelated claim or a weak paraphrase', () => {
    expect(marked('Napoleon crossed the river at dawn')).toEqual([]);
    // Best cosine about 0.4, with the wrong sentence: below minCosine, so no mark.
    expect(marked('She spoke to it shyly')).toEqual([]);
  });

  it('with vectors too, one shared word and a low cosine is only a weak match', () => {
    const claim = 'The Queen shouted that Alice should lose her head at once';
    const out = supportingSentences(claim, FRAGMENT, {}, vectorsFor(claim, FRAGMENT));
    expect(out).toHaveLength(1);
    expect(out[0].weak).toBe(true);
    expect(
      supportingSentences(
        'The animal smiled at the girl',
        FRAGMENT,
        {},
        vectorsFor('The animal smiled at the girl', FRAGMENT),
      )[0].weak,
    ).toBe(false);
  });

  it('keeps the lexical choice where the words decide', () => {
    expect(marked('The Cat says that everyone there is mad')[0]).toContain("we're all mad here");
    expect(marked('The Cat has long claws and many teeth')[0]).toContain('very long claws');
  });

  it('refuses vectors that do not fit the sentences', () => {
    const v = vectorsFor('mad', FRAGMENT);
    const wrong = { ...v, sentences: { ...v.sentences, count: v.sentences.count - 1 } };
    expect(() => supportingSentences('mad', FRAGMENT, {}, wrong)).toThrow(/do not fit/);
  });
});
