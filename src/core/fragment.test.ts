import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  countWords,
  isSentenceEnd,
  joinChatTurns,
  splitChat,
  splitCode,
  splitProse,
} from './fragment';
import type { Fragment } from './types';

const texts = (text: string, fragments: Fragment[]) =>
  fragments.map((f) => text.slice(f.start, f.end));

function expectTiling(text: string, fragments: Fragment[]) {
  expect(texts(text, fragments).join('')).toBe(text);
  fragments.forEach((f, k) => {
    expect(f.ordinal).toBe(k);
    if (k > 0) expect(f.start).toBe(fragments[k - 1].end);
  });
  if (fragments.length > 0) {
    expect(fragments[0].start).toBe(0);
    expect(fragments[fragments.length - 1].end).toBe(text.length);
  }
}

describe('countWords', () => {
  it('counts runs of non-whitespace, Unicode spaces included', () => {
    expect(countWords('')).toBe(0);
    expect(countWords('  one\ttwo\n\nthree  ')).toBe(3);
    expect(countWords('a\u00a0b\u3000c')).toBe(3);
    expect(countWords('abc def ghi', 2, 6)).toBe(2);
  });
});

describe('splitProse', () => {
  it('groups whole sentences near the target and keeps the whitespace after a sentence', () => {
    // Sentences of 3, 2, 4 and 1 words; target 5. "One two three." (3) + "Four five." (2) = 5
    // words fills the first fragment; "Six seven eight nine." (4) + "Ten." (1) = 5 the second.
    const text = 'One two three. Four five.  Six seven eight nine.\nTen.';
    const fragments = splitProse('d', text, { wordsPerFragment: 5 });
    expect(texts(text, fragments)).toEqual([
      'One two three. Four five.  ',
      'Six seven eight nine.\nTen.',
    ]);
    expect(fragments.map((f) => f.words)).toEqual([5, 5]);
    expect(fragments.every((f) => f.docId === 'd')).toBe(true);
  });

  it('lets a sentence join when that lands nearer the target than closing first', () => {
    // Target 10. Open fragment: 6 words. Next sentence 5 words: closing leaves 6 (4 short),
    // joining gives 11 (1 over), so it joins. Then 7 words: 11 is already over the target.
    const text = 'a b c d e f. g h i j k. l m n o p q r.';
    const fragments = splitProse('d', text, { wordsPerFragment: 10 });
    expect(fragments.map((f) => f.words)).toEqual([11, 7]);
    // Next sentence of 9 words after 6: closing is 4 short, joining 5 over: it closes.
    const text2 = 'a b c d e f. g h i j k l m n o.';
    expect(splitProse('d', text2, { wordsPerFragment: 10 }).map((f) => f.words)).toEqual([6, 9]);
  });

  it('cuts a sentence with no boundary at word boundaries', () => {
    const words = Array.from({ length: 23 }, (_, i) => `w${i}`);
    const text = words.join(' ');
    const fragments = splitProse('d', text, { wordsPerFragment: 10 });
    expect(fragments.map((f) => f.words)).toEqual([10, 10, 3]);
    expect(texts(text, fragments)[1]).toBe(words.slice(10, 20).join(' ') + ' ');
    expectTiling(text, fragments);
  });

  it('tops up the open fragment before cutting a long sentence', () => {
    // "Hi there." (2 words) is open when a 12-word sentence arrives; target 5:
    // 2 + 3 words, then 5, then the last 4 words stay open.
    const long = Array.from({ length: 12 }, (_, i) => `x${i}`).join(' ');
    const fragments = splitProse('d', `Hi there. ${long}`, { wordsPerFragment: 5 });
    expect(fragments.map((f) => f.words)).toEqual([5, 5, 4]);
  });

  it('tells sentence ends from titles, initials and dotted abbreviations', () => {
    for (const end of [
      'end.',
      'why?',
      'wow!',
      'Wait…',
      'so...',
      '"Quote."',
      'said.”',
      '(aside.)',
      'Me.',
    ]) {
      expect(isSentenceEnd(end), end).toBe(true);
    }
    for (const notEnd of [
      'word',
      'Mr.',
      'mrs.',
      'Dr.',
      'J.',
      'U.S.',
      'e.g.',
      'i.e.',
      '3.5',
      'etc',
      '(cf.',
    ]) {
      expect(isSentenceEnd(notEnd), notEnd).toBe(false);
    }
  });

  it('uses those ends and blank lines as the only cut points', () => {
    // "Mr." and "U.S." do not end sentences, so the 6-word first sentence closes a fragment
    // (target 6) and the 7-word second one is cut nowhere but after its target.
    const text = 'Mr. Darcy met J. Tolkien there. Then they left the U.S. at once.';
    expect(texts(text, splitProse('d', text, { wordsPerFragment: 6 }))).toEqual([
      'Mr. Darcy met J. Tolkien there. ',
      'Then they left the U.S. at ',
      'once.',
    ]);
    // A blank line ends the heading: "One two" (2) then 4 words, not one 6-word sentence.
    const para = 'One two\n\nThree four five six';
    expect(texts(para, splitProse('d', para, { wordsPerFragment: 4 }))).toEqual([
      'One two\n\n',
      'Three four five six',
    ]);
  });

  it('gives no fragment for empty text and one for whitespace only', () => {
    expect(splitProse('d', '')).toEqual([]);
    expect(splitProse('d', ' \n ')).toEqual([
      { docId: 'd', ordinal: 0, start: 0, end: 3, words: 0 },
    ]);
  });

  it('refuses a non-positive fragment size and unknown options', () => {
    expect(() => splitProse('d', 'a', { wordsPerFragment: 0 })).toThrow(/wordsPerFragment/);
    expect(() => splitProse('d', 'a', { wordsPerFrag: 3 } as never)).toThrow(
      /unknown fragment option/,
    );
  });

  it('is lossless: fragment spans concatenate back to the source (property)', () => {
    const piece = fc.constantFrom(
      'word',
      'Mr.',
      'end.',
      'why?',
      'wow!',
      '"quote."',
      'J.',
      'e.g.',
      '…',
      ' ',
      '  ',
      '\n',
      '\n\n',
      '\t',
      'x',
    );
    fc.assert(
      fc.property(
        fc.array(piece, { maxLength: 200 }),
        fc.integer({ min: 1, max: 20 }),
        (parts, target) => {
          const text = parts.join('');
          const fragments = splitProse('d', text, { wordsPerFragment: target });
          expectTiling(text, fragments);
          let total = 0;
          for (const f of fragments) {
            expect(f.words).toBe(countWords(text, f.start, f.end));
            // Nearest-to-target grouping never reaches twice the target.
            expect(f.words).toBeLessThan(2 * target);
            // Cuts fall at word starts only.
            if (f.start > 0) expect(/\s\S/.test(text.slice(f.start - 1, f.start + 1))).toBe(true);
            total += f.words ?? 0;
          }
          expect(total).toBe(countWords(text));
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('splitCode', () => {
  const numbered = (n: number, trailingNewline = true) =>
    Array.from({ length: n }, (_, i) => `line ${i + 1}`).join('\n') + (trailingNewline ? '\n' : '');

  it('slides 20-line windows by 10, the last one shorter, labelled 1-based', () => {
    const text = numbered(35);
    const windows = splitCode('a.ts', text);
    expect(windows.map((w) => w.label)).toEqual(['1-20', '11-30', '21-35']);
    expect(text.slice(windows[1].start, windows[1].end)).toBe(
      numbered(30).split('\n').slice(10).join('\n'),
    );
    expect(windows[2].end).toBe(text.length);
  });

  it('makes a file of at most 20 lines one window', () => {
    expect(splitCode('a', numbered(20)).map((w) => w.label)).toEqual(['1-20']);
    expect(splitCode('a', numbered(3, false)).map((w) => w.label)).toEqual(['1-3']);
    expect(splitCode('a', '')).toEqual([]);
    // A final newline does not start a line; an empty line in the middle is a line.
    expect(
      splitCode('a', 'x\n\ny\n', { windowLines: 2, windowStride: 1 }).map((w) => w.label),
    ).toEqual(['1-2', '2-3']);
  });

  it('refuses a stride longer than the window', () => {
    expect(() => splitCode('a', 'x', { windowLines: 5, windowStride: 6 })).toThrow(/windowStride/);
  });

  it('covers every line, and the non-overlapping parts rebuild the source (property)', () => {
    const line = fc.constantFrom('', 'x', 'let a = 1;', '  }', '\t// note');
    fc.assert(
      fc.property(
        fc.array(line, { maxLength: 80 }),
        fc.boolean(),
        fc.integer({ min: 1, max: 25 }),
        fc.integer({ min: 1, max: 25 }),
        (lines, trailing, windowLines, strideRaw) => {
          const text = lines.join('\n') + (trailing && lines.length > 0 ? '\n' : '');
          const windowStride = Math.min(strideRaw, windowLines);
          const windows = splitCode('f', text, { windowLines, windowStride });
          if (text.length === 0) {
            expect(windows).toEqual([]);
            return;
          }
          const lineCount = text.endsWith('\n')
            ? text.split('\n').length - 1
            : text.split('\n').length;
          const covered = new Uint8Array(lineCount);
          windows.forEach((w, k) => {
            expect(w.ordinal).toBe(k);
            const [first, last] = w.label!.split('-').map(Number);
            expect(first).toBe(k * windowStride + 1);
            expect(last - first + 1).toBeLessThanOrEqual(windowLines);
            if (k < windows.length - 1) expect(last - first + 1).toBe(windowLines);
            for (let l = first - 1; l < last; l++) covered[l] = 1;
            // A window's text is exactly its lines.
            const own = text.slice(w.start, w.end);
            expect(own.replace(/\n$/, '').split('\n').length).toBe(last - first + 1);
          });
          expect(covered.every((c) => c === 1)).toBe(true);
          expect(windows[windows.length - 1].label!.endsWith(`-${lineCount}`)).toBe(true);
          const rebuilt = windows
            .map((w, k) =>
              text.slice(w.start, k + 1 < windows.length ? windows[k + 1].start : w.end),
            )
            .join('');
          expect(rebuilt).toBe(text);
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('splitChat', () => {
  it('makes one fragment per turn that tiles the transcript', () => {
    const chat = joinChatTurns([
      { role: 'user', text: 'Who is Pierre?' },
      { role: 'assistant', text: 'A count.' },
      { role: 'user', text: 'Thanks' },
    ]);
    expect(chat.text).toBe('Who is Pierre?\n\nA count.\n\nThanks');
    const turns = splitChat('chat', chat);
    expect(texts(chat.text, turns)).toEqual(['Who is Pierre?\n\n', 'A count.\n\n', 'Thanks']);
    expect(turns.map((t) => t.label)).toEqual([
      'turn 1 (user)',
      'turn 2 (assistant)',
      'turn 3 (user)',
    ]);
    expect(turns.map((t) => t.words)).toEqual([3, 2, 1]);
    expectTiling(chat.text, turns);
  });

  it('accepts a text with turn starts and refuses bad starts', () => {
    expect(splitChat('c', { text: 'ab', starts: [0, 1] }).map((t) => t.label)).toEqual([
      'turn 1',
      'turn 2',
    ]);
    expect(splitChat('c', { text: '', starts: [] })).toEqual([]);
    expect(() => splitChat('c', { text: 'ab', starts: [1] })).toThrow(/offset 0/);
    expect(() => splitChat('c', { text: 'abc', starts: [0, 2, 1] })).toThrow(/must not decrease/);
    expect(() => splitChat('c', { text: 'abc', starts: [0, 5] })).toThrow(/length 3/);
  });

  it('tiles any transcript (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ maxLength: 30 }), { maxLength: 20 }), (parts) => {
        const chat = joinChatTurns(parts.map((text) => ({ text })));
        const turns = splitChat('c', chat);
        expect(turns.length).toBe(parts.length);
        expectTiling(chat.text, turns);
      }),
    );
  });
});
