import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { JA_BOOK, JA_PEOPLE, TH_TEXT, ZH_PEOPLE, ZH_TEXT } from '../../../test/scripts/samples';
import { bm25Scores, buildBm25Index } from '../bm25';
import { countWords, splitProse } from '../fragment';
import { foldAccents, tokenize, tokenizeByRules } from '../tokenize';
import { denseWordStarts, hasDenseScript, SEGMENT_PIECE, wordSegments } from './segment';

function chapters(text: string): string[] {
  return text.split(/\n(?=第.章)/).filter((c) => c.trim().length > 0);
}

describe('tokenize in scripts without spaces', () => {
  it('cuts Japanese into dictionary words', () => {
    expect(tokenize('吾輩は猫である。名前はまだ無い。')).toEqual([
      '吾輩',
      'は',
      '猫',
      'で',
      'ある',
      '名前',
      'は',
      'まだ',
      '無い',
    ]);
    // A name is the same tokens in the story and in a question about it.
    const name = tokenize('山田太郎');
    expect(name.length).toBeGreaterThan(0);
    expect(tokenize('山田太郎はどこに行きましたか').slice(0, name.length)).toEqual(name);
  });

  it('cuts Chinese and Thai into words, not one token per line', () => {
    expect(tokenize('李明每天早上去公园跑步。')).toEqual([
      '李',
      '明',
      '每天',
      '早上',
      '去',
      '公园',
      '跑步',
    ]);
    const thai = tokenize(TH_TEXT);
    expect(thai).toContain('ชาวนา');
    expect(thai).toContain('ตลาด');
    // Thai vowel signs are combining marks: they stay inside their words.
    expect(thai.every((t) => !/^\p{M}/u.test(t))).toBe(true);
  });

  it('keeps the Latin rules for Latin words inside mixed text', () => {
    expect(tokenize("東京のgetUserName関数とNatasha's本")).toEqual([
      '東京',
      'の',
      'getusername',
      'get',
      'user',
      'name',
      '関数',
      'と',
      'natasha',
      's',
      '本',
    ]);
  });

  it('leaves text without those scripts exactly as the rules give it (property)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 60 }), (s) => {
        fc.pre(!hasDenseScript(s));
        expect(tokenize(s, { foldAccents: false })).toEqual(tokenizeByRules(s));
        // Folding (tokenize.ts) changes tokens one by one, never where they are cut.
        expect(tokenize(s)).toEqual(tokenizeByRules(s).map(foldAccents));
        // And the rules tokenize each whitespace-separated run on its own, as before.
        expect(tokenize(s, { foldAccents: false })).toEqual(
          s.split(/\s+/).flatMap((w) => tokenizeByRules(w)),
        );
      }),
      { numRuns: 2000 },
    );
  });

  it('tokenizes a run longer than one segmenter piece like its halves cut at a sentence end', () => {
    const long = JA_BOOK.replace(/\s+/g, '');
    expect(long.length).toBeGreaterThan(2 * SEGMENT_PIECE);
    const cut = long.indexOf('。', long.length / 2) + 1;
    expect(tokenize(long)).toEqual([...tokenize(long.slice(0, cut)), ...tokenize(long.slice(cut))]);
  });
});

describe('ICU word segments', () => {
  it('tile the text, also across the pieces handed to the segmenter', () => {
    const text = JA_BOOK + ZH_TEXT + TH_TEXT;
    let at = 0;
    for (const s of wordSegments(text)) {
      expect(s.start).toBe(at);
      expect(s.end).toBeGreaterThan(s.start);
      at = s.end;
    }
    expect(at).toBe(text.length);
  });

  it('attach punctuation to the word before and opening brackets to the word after', () => {
    const text = '花子は「いってらっしゃい」と言った。';
    const starts = denseWordStarts(text, 0, text.length);
    const words = starts.map((s, k) => text.slice(s, starts[k + 1] ?? text.length));
    expect(words.join('')).toBe(text);
    expect(words.slice(0, 2)).toEqual(['花子', 'は']);
    expect(words[2].startsWith('「')).toBe(true);
    expect(words.some((w) => w.endsWith('」'))).toBe(true);
    expect(words[words.length - 1]).toBe('た。');
    expect(words.every((w) => w !== '「' && w !== '」' && w !== '。')).toBe(true);
  });
});

describe('fragments in scripts without spaces', () => {
  it('count words the same way in Japanese and English sentences of the same content', () => {
    expect(countWords('吾輩は猫である。名前はまだ無い。')).toBe(9);
    expect(countWords('I am a cat. As yet I have no name.')).toBe(10);
    // Latin counting is unchanged: runs of non-whitespace.
    expect(countWords('word-for-word, e.g. this')).toBe(3);
    expect(countWords('Tokyo 東京タワー is tall')).toBe(2 + countWords('東京タワー') + 1);
  });

  it('split a Japanese book into fragments near the target that end at sentence ends and tile it', () => {
    const fragments = splitProse('ja', JA_BOOK, { wordsPerFragment: 60 });
    expect(fragments.length).toBeGreaterThan(10);
    expect(fragments.map((f) => JA_BOOK.slice(f.start, f.end)).join('')).toBe(JA_BOOK);
    for (const f of fragments.slice(0, -1)) {
      const body = JA_BOOK.slice(f.start, f.end).trimEnd();
      // A fragment closes after 。 (with a closing bracket) or at a paragraph break.
      expect(/[。」]$/.test(body) || /\n\n$/.test(JA_BOOK.slice(f.start, f.end + 1))).toBe(true);
      expect(f.words).toBe(countWords(JA_BOOK, f.start, f.end));
      expect(f.words).toBeGreaterThan(0);
      expect(f.words).toBeLessThanOrEqual(2 * 60);
    }
    const total = fragments.reduce((n, f) => n + (f.words ?? 0), 0);
    expect(total).toBe(countWords(JA_BOOK));
    // The mean lands near the target, as it does for English prose.
    expect(total / fragments.length).toBeGreaterThan(30);
  });

  it('split a Chinese text and a Thai paragraph without losing a character', () => {
    for (const text of [ZH_TEXT, TH_TEXT]) {
      const fragments = splitProse('x', text, { wordsPerFragment: 20 });
      expect(fragments.length).toBeGreaterThan(1);
      expect(fragments.map((f) => text.slice(f.start, f.end)).join('')).toBe(text);
      for (const f of fragments) expect(f.words).toBeLessThanOrEqual(2 * 20);
    }
  });
});

describe('BM25 over Japanese and Chinese', () => {
  it('ranks the chapter about a named person first for a question about that person', () => {
    const cases: [string, readonly string[], string[]][] = [
      [
        JA_BOOK,
        JA_PEOPLE,
        [
          '山田太郎は週末にどこへ出かけましたか',
          '佐藤花子が毎朝最初に焼くパンは何ですか',
          '鈴木一郎の網にかかった魚は何ですか',
          '高橋美咲は雪の夜にどうしましたか',
          '伊藤健は迷子の女の子に何を出しましたか',
        ],
      ],
      [ZH_TEXT, ZH_PEOPLE, ['李明晚上喜欢做什么', '王芳在医院做什么工作', '张伟最喜欢画什么']],
    ];
    for (const [text, people, questions] of cases) {
      const docs = chapters(text);
      expect(docs).toHaveLength(people.length);
      const index = buildBm25Index(docs.map((d) => tokenize(d)));
      questions.forEach((q, k) => {
        const scores = bm25Scores(index, tokenize(q));
        const best = scores.indexOf(Math.max(...scores));
        expect(best, q).toBe(k);
        expect(docs[best]).toContain(people[k]);
      });
    }
  });
});
