import { describe, expect, it } from 'vitest';
import { parsesToStore, type FileParse } from './reindex';

function parse(k: number): FileParse {
  return { path: `src/f${k}.ts`, sha256: 'ab'.repeat(32), syntax: null };
}

describe('parsesToStore', () => {
  it('keeps every parse that fits the budget', () => {
    const all = Array.from({ length: 50 }, (_, k) => parse(k));
    const kept = parsesToStore(all);
    expect(kept).toMatchObject({ parses: all, left: 0 });
    // The size it measured is the parses' JSON, less the array's commas and brackets.
    expect(kept.chars).toBe(JSON.stringify(all).length - (all.length - 1) - 2);
  });

  it('keeps the first parses within the budget and counts the rest', () => {
    const all = Array.from({ length: 100 }, (_, k) => parse(k));
    const each = JSON.stringify(parse(10)).length;
    const { parses, left } = parsesToStore(all, each * 30 + 5);
    expect(parses).toEqual(all.slice(0, parses.length));
    expect(parses.length).toBeGreaterThanOrEqual(28);
    expect(parses.length).toBeLessThanOrEqual(31);
    expect(left).toBe(100 - parses.length);
    expect(JSON.stringify(parses).length).toBeLessThanOrEqual(each * 30 + 5 + parses.length + 2);
  });
});
