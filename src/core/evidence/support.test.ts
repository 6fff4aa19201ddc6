import { describe, expect, it } from 'vitest';
import { sentencesOf, supportingSentences } from './support';

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

  it('marks at most maxSentences, best first', () => {
    const out = supportingSentences('Alice Cat mad claws respect name', FRAGMENT, {
      maxSentences: 2,
      relative: 0,
    });
    expect(out).toHaveLength(2);
    expect(out[0].score).toBeGreaterThanOrEqual(out[1].score);
  });
});
