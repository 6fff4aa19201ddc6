import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { chunkSentences, chunkText, joinWithoutOverlap, wordCount } from './chunker';

const small = { chunkSize: 5, minSentence: 2, overlap: 2 };
const texts = (compat: boolean, input: string, options = small, splitLongStretches = false) =>
  chunkText(input, { ...options, compat, splitLongStretches }).map((c) => c.text);

const V1 = "Hello world, it's 3.5 o'clock. Foo bar baz; qux! Trailing text without stop";
const V3 =
  'Kathy Griffin (born November 4, 1960) is an American comedian. She studied drama at the Lee Strasberg Theatre and Film Institute.';
const V5 = Array.from(
  { length: 30 },
  (_, i) => `Sentence number ${i + 1} has seven words total.`,
).join(' ');

describe('wordCount (LongBench get_word_list)', () => {
  it('counts like the official counter', () => {
    expect(wordCount(V1)).toBe(16);
    expect(wordCount("it's")).toBe(2);
    expect(wordCount('1,000')).toBe(2);
    expect(wordCount('中文abc字')).toBe(4);
    expect(wordCount('  ')).toBe(0);
  });
});

describe('chunkText, compat mode: the official output (PIPELINES.md 2.3)', () => {
  it('decimal split; overlap skipped for chunk 2; tail dropped', () => {
    expect(texts(true, V1)).toEqual([
      "Hello world, it's 3.",
      "5 o'clock. Foo bar baz;",
      "5 o'clock. Foo bar baz; qux!",
    ]);
  });
  it('no delimiter: one chunk', () => {
    expect(texts(true, 'No delimiters here at all')).toEqual(['No delimiters here at all']);
  });
  it('tail merge fires', () => {
    expect(texts(true, V3)).toEqual([
      'Kathy Griffin (born November 4,',
      ' 1960) is an American comedian. She studied drama at the Lee Strasberg Theatre and Film Institute.',
    ]);
  });
  it('tail dropped', () => {
    expect(texts(true, 'A b. C d')).toEqual(['A b.']);
  });
  it('threshold 20 - 14 = 6: stride 1', () => {
    const out = texts(true, V5, { chunkSize: 20, minSentence: 2, overlap: 2 });
    expect(out).toHaveLength(28);
    for (const c of out) expect(wordCount(c)).toBe(21);
    expect(out[1].startsWith(' Sentence number 2 ')).toBe(true);
    expect(out[27]).toBe(
      ' Sentence number 28 has seven words total. Sentence number 29 has seven words total. Sentence number 30 has seven words total.',
    );
  });
});

describe('chunkText, product mode', () => {
  it('keeps the tail after the last delimiter', () => {
    expect(texts(false, 'A b. C d')).toEqual(['A b. C d']);
    expect(texts(false, V1)).toEqual([
      "Hello world, it's 3.",
      "5 o'clock. Foo bar baz;",
      "5 o'clock. Foo bar baz; qux!",
      ' Foo bar baz; qux! Trailing text without stop',
    ]);
    expect(texts(false, V3)).toEqual(texts(true, V3));
    expect(texts(false, V5, { chunkSize: 20, minSentence: 2, overlap: 2 })).toEqual(
      texts(true, V5, { chunkSize: 20, minSentence: 2, overlap: 2 }),
    );
  });
  it('splits a long delimiter-free stretch into word windows', () => {
    const long = Array.from({ length: 23 }, (_, i) => `w${i}`).join(' ');
    const options = { chunkSize: 10, minSentence: 2, overlap: 2 };
    expect(texts(false, long, options)).toEqual([long]);
    const out = texts(false, long, options, true);
    // Windows of 10, 10 and 3 words; the 3-word tail merges into the chunk before it.
    expect(out.map(wordCount)).toEqual([10, 13]);
    expect(out.join('')).toBe(long);
  });
  it('chunks with their overlaps removed rebuild the input (property)', () => {
    const word = fc.stringMatching(/^[A-Za-z0-9']{1,8}$/);
    const sep = fc.constantFrom(' ', '  ', ', ', '. ', '; ', '! ', '? ', '.', '\n', '。', '，');
    const textArb = fc
      .array(fc.tuple(word, sep), { minLength: 1, maxLength: 80 })
      .map((parts) => parts.map(([w, s]) => w + s).join(''));
    fc.assert(
      fc.property(
        textArb,
        fc.integer({ min: 1, max: 40 }),
        fc.integer({ min: 0, max: 3 }),
        fc.integer({ min: 1, max: 4 }),
        (text, chunkSize, overlap, minSentence) => {
          const options = {
            chunkSize,
            overlap,
            minSentence,
            compat: false,
            splitLongStretches: true,
          };
          const chunks = chunkText(text, options);
          expect(joinWithoutOverlap(chunks, chunkSentences(text, options))).toBe(text);
        },
      ),
      { numRuns: 300 },
    );
  });
});
