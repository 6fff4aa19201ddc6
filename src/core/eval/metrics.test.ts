import { describe, expect, it } from 'vitest';
import {
  choiceLetter,
  containEM,
  corpusScore,
  exactMatch,
  choiceOptions,
  letterAccuracy,
  mappedChoiceLetter,
  normalizeAnswer,
  qaF1,
  quotedOption,
} from './metrics';

describe('LongBench metrics: the reference values of PIPELINES.md 6.2', () => {
  it('qaF1', () => {
    expect(
      qaF1(
        'The Lee Strasberg Theatre & Film Institute.',
        'Lee Strasberg Theatre and Film Institute',
      ),
    ).toBeCloseTo(0.9091, 4);
    expect(qaF1('Answer: Hanyang University', 'Hanyang University')).toBeCloseTo(0.8, 10);
    expect(qaF1('U.S.A.', 'USA')).toBe(1);
    expect(qaF1('1,000', '1000')).toBe(1);
    expect(qaF1("don't", 'do not')).toBe(0);
    expect(qaF1('Café', 'cafe')).toBe(0);
    expect(qaF1('the the a', 'the')).toBe(0);
  });
  it('corpus F1', () => {
    expect(corpusScore(['Paris France', 'x'], [['Paris', 'France'], ['y']])).toBe(33.33);
    expect(corpusScore([], [])).toBe(0);
  });
  it('normalisation: Unicode-aware article boundaries, ASCII punctuation only', () => {
    expect(normalizeAnswer('  The  Éthe a-an  ')).toBe('éthe aan');
    expect(normalizeAnswer('an apple, THE end')).toBe('apple end');
    expect(normalizeAnswer('«Quote»')).toBe('«quote»');
    expect(normalizeAnswer('theatre')).toBe('theatre');
  });
  it('EM, contain-EM and letters', () => {
    expect(exactMatch('The Paris.', 'paris')).toBe(1);
    expect(exactMatch('Paris, France', 'paris')).toBe(0);
    expect(containEM('It was in Paris, France.', 'paris')).toBe(1);
    expect(containEM('Parisian', 'paris')).toBe(0);
    expect(containEM('anything', 'the')).toBe(0);
    expect(choiceLetter('(C) the third')).toBe('C');
    expect(choiceLetter('Answer: B.')).toBe('B');
    expect(choiceLetter('I think D')).toBe('D');
    expect(choiceLetter('none')).toBeNull();
    expect(letterAccuracy('b', 'B')).toBe(0);
    expect(letterAccuracy('B) yes', 'b')).toBe(1);
  });
});

describe('an answer that quotes one option, mapped back to its letter', () => {
  // The shape of L-Eval QuALITY's instructions (its first question, options shortened).
  const question =
    "Why did the Tr'en leave Korvin's door unlocked?\n\n (A) They were so caught up in Korvin's " +
    'answers that they became careless. \n (B) Their subconscious knew that Korvin was an ' +
    'insoluble problem. \n (C) They were tired of the (B) Ruler. \n (D) He was not a threat. ';
  const options = choiceOptions(question);

  it('reads the options in letter order; a "(B)" inside an option stays in its text', () => {
    expect([...options.keys()]).toEqual(['A', 'B', 'C', 'D']);
    expect(options.get('B')).toBe('Their subconscious knew that Korvin was an insoluble problem.');
    expect(options.get('C')).toBe('They were tired of the (B) Ruler.');
    expect(options.get('D')).toBe('He was not a threat.');
    expect(choiceOptions('What is the capital of France?').size).toBe(0);
  });

  it('maps an answer that contains exactly one option, or a long enough piece of one', () => {
    expect(
      quotedOption('their subconscious knew that Korvin was an insoluble problem', options),
    ).toBe('B');
    expect(quotedOption('I think he was not a threat, so they let him go.', options)).toBe('D');
    // Cut by the output cap: a piece of 4 words or more of one option.
    expect(quotedOption('They were so caught up', options)).toBe('A');
    // Too short to say which, two options whole, or bits of two options and neither: no letter.
    expect(quotedOption('They were', options)).toBeNull();
    expect(
      quotedOption(
        'He was not a threat. Their subconscious knew that Korvin was an insoluble problem.',
        options,
      ),
    ).toBeNull();
    expect(quotedOption('was not a threat. They were tired of the Ruler', options)).toBeNull();
    expect(quotedOption('Korvin escaped through the door.', options)).toBeNull();
    expect(quotedOption('', options)).toBeNull();
  });

  it('a parsed letter comes first; the quote is the fallback', () => {
    expect(mappedChoiceLetter('(A) He was not a threat.', options)).toBe('A');
    expect(mappedChoiceLetter('He was not a threat.', options)).toBe('D');
    expect(choiceLetter('He was not a threat.')).toBeNull();
    expect(mappedChoiceLetter('Nobody knows.', options)).toBeNull();
  });
});
