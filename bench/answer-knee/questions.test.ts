import { describe, expect, it } from 'vitest';
import { answerHoldsGold, bookText, kneeQuestions } from './items';

const questions = kneeQuestions();

describe('the answer-knee question set', () => {
  it('has about 30 questions with distinct ids over several books', () => {
    expect(questions.length).toBeGreaterThanOrEqual(30);
    expect(new Set(questions.map((q) => q.id)).size).toBe(questions.length);
    expect(new Set(questions.map((q) => q.book)).size).toBeGreaterThanOrEqual(8);
  });

  it.each(questions.map((q) => [q.id, q] as const))(
    '%s: the gold answer occurs in its book, normalised as answers are scored',
    (_id, q) => {
      const text = bookText(q.book);
      expect(answerHoldsGold({ answer: q.answer }, text)).toBe(1);
      // The gold is short: a name or a few words, not a copied passage.
      expect(q.answer.split(/\s+/).length).toBeLessThanOrEqual(3);
      // The question does not give its own answer away.
      expect(answerHoldsGold({ answer: q.answer }, q.question)).toBe(0);
    },
  );

  it('scores an answer by the whole words of the gold or an accepted spelling', () => {
    const q = { answer: 'Spouter-Inn', accept: ['Spouter Inn'] };
    expect(answerHoldsGold(q, 'They stayed at the Spouter-Inn [2].')).toBe(1);
    expect(answerHoldsGold(q, 'the spouter inn')).toBe(1);
    expect(answerHoldsGold(q, 'The excerpts do not tell.')).toBe(0);
    expect(answerHoldsGold({ answer: 'Basil' }, 'Basilisk')).toBe(0);
    expect(answerHoldsGold({ answer: 'DRINK ME' }, '"Drink me," it said.')).toBe(1);
  });
});
