import { describe, expect, it } from 'vitest';
import { pairedBootstrap } from './bootstrap';

describe('pairedBootstrap', () => {
  it('gives the same interval for the same seed and a different one for another seed', () => {
    const base = Array.from({ length: 60 }, (_, i) => (i % 3) / 2);
    const variant = base.map((x, i) => x + (i % 5 === 0 ? 0.5 : i % 7 === 0 ? -0.5 : 0));
    const a = pairedBootstrap(variant, base, { seed: 7, resamples: 500 });
    const b = pairedBootstrap(variant, base, { seed: 7, resamples: 500 });
    const c = pairedBootstrap(variant, base, { seed: 8, resamples: 500 });
    expect(a).toEqual(b);
    expect(c.ci95).not.toEqual(a.ci95);
    expect(a.ci95[0]).toBeLessThanOrEqual(a.mean);
    expect(a.ci95[1]).toBeGreaterThanOrEqual(a.mean);
  });

  it('counts helped and hurt questions and gives the mean change (hand-computed)', () => {
    const d = pairedBootstrap([1, 0.5, 0, 1], [0.5, 0.5, 0.5, 0], { resamples: 200 });
    expect(d.mean).toBeCloseTo((0.5 + 0 - 0.5 + 1) / 4, 12);
    expect(d.better).toBe(2);
    expect(d.worse).toBe(1);
  });

  it('collapses to the shift when every question moves by the same amount', () => {
    const base = [0.1, 0.4, 0.9, 0.3];
    const d = pairedBootstrap(
      base.map((x) => x + 0.25),
      base,
      { resamples: 100 },
    );
    expect(d.ci95[0]).toBeCloseTo(0.25, 12);
    expect(d.ci95[1]).toBeCloseTo(0.25, 12);
  });

  it('excludes zero for a clear gain and includes it for noise', () => {
    const base = Array.from({ length: 200 }, () => 0.5);
    const gain = base.map((x, i) => x + (i % 4 === 0 ? 0 : 0.2));
    expect(pairedBootstrap(gain, base).ci95[0]).toBeGreaterThan(0);
    const noise = base.map((x, i) => x + (i % 2 === 0 ? 0.2 : -0.2));
    const n = pairedBootstrap(noise, base);
    expect(n.ci95[0]).toBeLessThan(0);
    expect(n.ci95[1]).toBeGreaterThan(0);
  });

  it('refuses unpaired inputs with a message', () => {
    expect(() => pairedBootstrap([1, 2], [1])).toThrow(/same questions/);
  });
});
