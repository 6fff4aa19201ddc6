import { describe, expect, it } from 'vitest';
import {
  choiceLetter,
  containEM,
  corpusScore,
  exactMatch,
  letterAccuracy,
  normalizeAnswer,
  qaF1,
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
