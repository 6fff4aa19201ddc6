import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { buildBm25Index, bm25Scores } from './bm25';
import { splitProse } from './fragment';
import { queryTerms } from './retrieval/query';
import { foldAccents, tokenize } from './tokenize';
import { sharedDatasetPath } from '../../test/glove';

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

  it('folds the accents of Latin words, keeps them on request, and can skip identifier splitting', () => {
    expect(tokenize('Café Émile')).toEqual(['cafe', 'emile']);
    expect(tokenize('Café Émile', { foldAccents: false })).toEqual(['café', 'émile']);
    expect(tokenize('getUserName', { splitIdentifiers: false })).toEqual(['getusername']);
  });

  it('drops short tokens on request', () => {
    expect(tokenize('a cat is on a mat', { minLength: 2 })).toEqual(['cat', 'is', 'on', 'mat']);
  });
});

describe('accent folding', () => {
  it('matches "Bezukhov" with "Bezúkhov", in every Latin spelling of a name', () => {
    expect(tokenize('Pierre Bezúkhov')).toEqual(tokenize('Pierre Bezukhov'));
    expect(tokenize('Natásha, Hélène, Zoë, señor, Ångström, São Paulo, ﬁne')).toEqual([
      'natasha',
      'helene',
      'zoe',
      'senor',
      'angstrom',
      'sao',
      'paulo',
      'fine',
    ]);
    // Identifier parts are folded too; letters without a decomposition stay.
    expect(tokenize('créerFenêtre straße æther')).toEqual([
      'creerfenetre',
      'creer',
      'fenetre',
      'straße',
      'æther',
    ]);
  });

  it('leaves other scripts as they are: marks there are part of the letter', () => {
    // Japanese voiced kana (が = か + ゛), Russian й (и + breve), Hindi vowel signs, Thai.
    expect(foldAccents('がっこう')).toBe('がっこう');
    expect(foldAccents('войной')).toBe('войной');
    expect(foldAccents('हिन्दी')).toBe('हिन्दी');
    expect(tokenize('戦争と平和、ピエール・ベズーホフ')).toEqual(
      tokenize('戦争と平和、ピエール・ベズーホフ', { foldAccents: false }),
    );
    expect(tokenize('สงครามและสันติภาพ')).toEqual(
      tokenize('สงครามและสันติภาพ', { foldAccents: false }),
    );
    // A mixed text: the Japanese words are segmented as before, the Latin name folded.
    const mixed = tokenize('ピエール（Bezúkhov）は言った');
    expect(mixed).toContain('bezukhov');
    expect(mixed.filter((t) => t !== 'bezukhov')).toEqual(
      tokenize('ピエール（Bezukhov）は言った').filter((t) => t !== 'bezukhov'),
    );
  });

  it('lets BM25 answer "Who is Pierre Bezukhov?" over War and Peace with Bezúkhov fragments', () => {
    const text = readFileSync(sharedDatasetPath('gutenberg/pg2600_war_and_peace.txt'), 'utf8');
    const fragments = splitProse('wp', text, { wordsPerFragment: 500 });
    const index = buildBm25Index(fragments.map((f) => tokenize(text.slice(f.start, f.end))));
    const scores = bm25Scores(index, queryTerms('Who is Pierre Bezukhov?'));
    const ranked = [...scores.keys()].sort((a, b) => scores[b] - scores[a]);
    // The word itself, not "Bezúkhova" or "Bezúkhovs".
    const bezukhov = /(?<!\p{L})Bezúkhov(?!\p{L})/u;
    const top = ranked.slice(0, 5).map((i) => text.slice(fragments[i].start, fragments[i].end));
    // The unaccented question reaches the accented name: every one of the top five names him.
    for (const fragment of top) {
      expect(fragment).toMatch(/Pierre/);
      expect(fragment).toMatch(bezukhov);
    }
    // The name alone scores exactly the fragments that write it.
    const name = bm25Scores(index, queryTerms('Bezukhov'));
    const named = fragments.filter((f) => bezukhov.test(text.slice(f.start, f.end))).length;
    expect(named).toBeGreaterThan(40);
    expect(name.filter((s) => s > 0).length).toBe(named);
  });
});
