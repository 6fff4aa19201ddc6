import { describe, expect, it } from 'vitest';
import { STOP_WORDS } from '../stopwords';
import { QUESTION_WORDS, queryTerms } from './query';

describe('queryTerms: stop words and interrogatives out, every content word kept', () => {
  it('drops the interrogatives and function words', () => {
    expect(queryTerms('Who was the narrator of the story, and whose letter did he read?')).toEqual([
      'narrator',
      'story',
      'letter',
      'read',
    ]);
  });

  it('keeps words that carry meaning in other questions (text, paper, world, true, false)', () => {
    expect(queryTerms('Is it true that the paper describes the world of the text?')).toEqual([
      'true',
      'paper',
      'describes',
      'world',
      'text',
    ]);
    expect(queryTerms('What did the author say was false?')).toEqual(['author', 'say', 'false']);
  });

  it('is the interrogatives only: no content word of a question is a question word', () => {
    for (const w of QUESTION_WORDS) expect(w).toMatch(/^(wh|how)/);
    expect(STOP_WORDS.has('what')).toBe(true);
  });

  it('keeps the whole question when nothing else would remain', () => {
    expect(queryTerms('Who and what?')).toEqual(['who', 'and', 'what']);
  });
});
