import { describe, expect, it } from 'vitest';
import { scoreAnswer } from './answers';

describe('scoreAnswer', () => {
  it('takes the best gold answer per metric (hand-computed)', () => {
    const s = scoreAnswer(
      { answers: ['Lee Strasberg Theatre and Film Institute', 'Strasberg'] },
      'The Strasberg.',
    );
    // F1: "strasberg" vs "strasberg" = 1; EM: "strasberg" = "strasberg"; contain: yes.
    expect(s).toEqual({ f1: 1, em: 1, contain: 1, letter: null });
    const t = scoreAnswer({ answers: ['Paris'] }, 'It was in Paris, France.');
    // F1 = 2PR/(P+R): 1 of the 5 answer tokens "it was in paris france" is gold (P = 1/5), R = 1.
    expect(t?.f1).toBeCloseTo((2 * (1 / 5)) / (1 / 5 + 1), 12);
    expect(t?.em).toBe(0);
    expect(t?.contain).toBe(1);
  });

  it('scores QuALITY letters and has nothing to score without answers', () => {
    expect(
      scoreAnswer({ answers: ['the third option'], answerLetter: 'C' }, '(C) the third option')
        ?.letter,
    ).toBe(1);
    expect(scoreAnswer({ answers: ['x'], answerLetter: 'C' }, 'B')?.letter).toBe(0);
    expect(scoreAnswer({ answers: [] }, 'anything')).toBeNull();
  });
});
