import { describe, expect, it } from 'vitest';
import { selectWindowSpans, type WindowRef } from './spans';

/** Windows of 20 lines sliding by 10 over a file of `lines` lines (like splitCode). */
function slide(file: string, lines: number): WindowRef[] {
  const out: WindowRef[] = [];
  for (let first = 1; first <= lines; first += 10) {
    out.push({ file, first, last: Math.min(lines, first + 19) });
    if (first + 19 >= lines) break;
  }
  return out;
}

describe('selectWindowSpans', () => {
  it('merges overlapping windows into one span and gives the freed lines to the next window', () => {
    // a.py: windows 0..4 (lines 1-20, 11-30, 21-40, 31-50, 41-60); b.py: windows 5..7.
    const windows = [...slide('a.py', 60), ...slide('b.py', 40)];
    expect(windows).toHaveLength(8);
    // Ranking: a's windows 1, 2, 3 first (overlapping), then b's window 6, then the rest.
    const final = Float64Array.from([0.1, 0.9, 0.8, 0.7, 0.2, 0.3, 0.6, 0.05]);
    const { selection, spans, duplicateOf } = selectWindowSpans(final, windows, {
      maxWindows: 2,
      windowLines: 20,
    });
    // 40 lines of budget: window 1 (lines 11-30) costs 20, window 2 (21-40) only 10 new lines,
    // window 3 (31-50) 10 more: 40 lines, where taking whole windows would have repeated 20.
    expect([...selection.ranked]).toEqual([1, 2, 3]);
    expect(selection.used).toBe(40);
    expect(selection.budget).toBe(40);
    expect(spans).toEqual([
      { file: 'a.py', first: 11, last: 50, windows: [1, 2, 3], rank: 0, best: 1 },
    ]);
    expect(duplicateOf.size).toBe(0);
  });

  it('never hands the same line twice, across many overlapping top windows', () => {
    const windows = [...slide('a.py', 200), ...slide('b.py', 200)];
    // Scores fall along a.py so its neighbouring windows rank together.
    const final = Float64Array.from(windows, (w, i) => (w.file === 'a.py' ? 1 - i / 100 : 0.5));
    const { spans, selection } = selectWindowSpans(final, windows, {
      maxWindows: 10,
      windowLines: 20,
    });
    let lines = 0;
    for (const s of spans) lines += s.last - s.first + 1;
    expect(lines).toBe(selection.used);
    expect(selection.used).toBe(200);
    // Spans of one file never overlap or touch.
    const a = spans.filter((s) => s.file === 'a.py').sort((x, y) => x.first - y.first);
    for (let k = 1; k < a.length; k++) expect(a[k].first).toBeGreaterThan(a[k - 1].last + 1);
  });

  it('names a window wholly inside the taken lines as a repeat, and skips excluded windows', () => {
    const windows: WindowRef[] = [
      { file: 'a', first: 1, last: 20 },
      { file: 'a', first: 5, last: 15 },
      { file: 'a', first: 21, last: 40 },
      { file: 'b', first: 1, last: 20 },
    ];
    const final = Float64Array.from([0.9, 0.8, 0.7, 0.6]);
    const { selection, duplicateOf, spans } = selectWindowSpans(final, windows, {
      maxWindows: 2,
      windowLines: 20,
      exclude: [2],
    });
    expect(duplicateOf.get(1)).toBe(0);
    expect([...selection.indices]).toEqual([0, 3]);
    expect(spans.map((s) => [s.file, s.first, s.last])).toEqual([
      ['a', 1, 20],
      ['b', 1, 20],
    ]);
  });
});
