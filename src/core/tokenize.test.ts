import { describe, expect, it } from 'vitest';
import { tokenize } from './tokenize';

describe('tokenize', () => {
  it('lower-cases prose and splits at punctuation', () => {
    expect(tokenize("Natasha's ball, in 1805!")).toEqual(['natasha', 's', 'ball', 'in', '1805']);
  });

  it('keeps an identifier whole and adds its camelCase parts', () => {
    expect(tokenize('getUserName()')).toEqual(['getusername', 'get', 'user', 'name']);
    expect(tokenize('HTTPServer')).toEqual(['httpserver', 'http', 'server']);
    expect(tokenize('parseJSON2Text')).toEqual(['parsejson2text', 'parse', 'json2', 'text']);
  });

  it('keeps a snake_case identifier whole and adds its parts', () => {
    expect(tokenize('user_id = MAX_RETRY_COUNT')).toEqual([
      'user_id',
      'user',
      'id',
      'max_retry_count',
      'max',
      'retry',
      'count',
    ]);
  });

  it('treats leading and trailing underscores as part of one word', () => {
    expect(tokenize('__init__ _private')).toEqual(['init', 'private']);
  });

  it('handles accented letters and can skip identifier splitting', () => {
    expect(tokenize('Café Émile')).toEqual(['café', 'émile']);
    expect(tokenize('getUserName', { splitIdentifiers: false })).toEqual(['getusername']);
  });

  it('drops short tokens on request', () => {
    expect(tokenize('a cat is on a mat', { minLength: 2 })).toEqual(['cat', 'is', 'on', 'mat']);
  });
});
