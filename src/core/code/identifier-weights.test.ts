import { describe, expect, it } from 'vitest';
import { identifierStats, identifiersOf, weightByIdentifiers } from './identifier-weights';
import type { CsrMatrix } from '../types';

// Four windows: 0 defines parse_config, used by 1 and 2; 3 shares only common words with 0.
const TEXTS = [
  'def parse_config(path):\n    return load(path)',
  'cfg = parse_config(args.path)\nrun(cfg)',
  'settings = parse_config(p)\nuse(settings)',
  'def load(path):\n    return open(path)',
];
const identifiers = TEXTS.map(identifiersOf);
const defined = [
  new Set(['parse_config']),
  new Set<string>(),
  new Set<string>(),
  new Set(['load']),
];
/** Every window related to every other with weight 1. */
const full: CsrMatrix = {
  size: 4,
  rowPtr: Uint32Array.of(0, 3, 6, 9, 12),
  col: Uint32Array.of(1, 2, 3, 0, 2, 3, 0, 1, 3, 0, 1, 2),
  weight: new Float32Array(12).fill(1),
};

describe('identifier weighting of the code relation', () => {
  it('reads whole identifiers of at least 3 characters', () => {
    expect([...identifiersOf('x = parse_config(a.path) + $el')].sort()).toEqual(
      ['$el', 'parse_config', 'path'].sort(),
    );
  });

  it('counts IDF over windows and references to a window’s definitions from other windows', () => {
    const { idf, refs } = identifierStats(identifiers, defined);
    expect(idf.get('parse_config')).toBeCloseTo(Math.log(4 / 3), 12);
    expect(idf.get('settings')).toBeCloseTo(Math.log(4), 12);
    // parse_config is mentioned by windows 1 and 2; load by window 0.
    expect(Array.from(refs)).toEqual([2, 0, 0, 1]);
  });

  it('β = γ = 0 leaves Eq. 8 unchanged; β weighs rare shared names; γ weighs referenced definitions', () => {
    const stats = identifierStats(identifiers, defined);
    const same = weightByIdentifiers(full, identifiers, stats, { shared: 0, references: 0 });
    expect(Array.from(same.weight)).toEqual(Array.from(full.weight));

    const shared = weightByIdentifiers(full, identifiers, stats, { shared: 4, references: 0 });
    const row = (m: CsrMatrix, i: number) =>
      Object.fromEntries(
        Array.from({ length: m.rowPtr[i + 1] - m.rowPtr[i] }, (_, k) => [
          m.col[m.rowPtr[i] + k],
          m.weight[m.rowPtr[i] + k],
        ]),
      );
    const r2 = row(shared, 2);
    // Window 2 shares parse_config with 0 and 1, and nothing with 3.
    expect(r2[3]).toBeCloseTo(1, 6);
    expect(r2[0]).toBeGreaterThan(1);
    expect(r2[0]).toBeCloseTo(r2[1], 6);

    const refs = weightByIdentifiers(full, identifiers, stats, { shared: 0, references: 1 });
    const r1 = row(refs, 1);
    // From window 1: window 0 (referenced twice) outweighs window 3 (once) outweighs window 2 (never).
    expect(r1[0]).toBeCloseTo(1 + Math.log(3), 6);
    expect(r1[3]).toBeCloseTo(1 + Math.log(2), 6);
    expect(r1[2]).toBeCloseTo(1, 6);
  });

  it('refuses inputs that do not match the relation', () => {
    const stats = identifierStats(identifiers, defined);
    expect(() =>
      weightByIdentifiers(full, identifiers.slice(1), stats, { shared: 1, references: 0 }),
    ).toThrow(/3 identifier sets for 4 windows/);
    expect(() => identifierStats(identifiers, defined.slice(1))).toThrow(/3 definition sets/);
  });
});
