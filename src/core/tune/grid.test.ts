import { describe, expect, it } from 'vitest';
import { buildRun } from '../run';
import { defaultTuneGrid, gridConfigs, tune, type TuneConfig, type TuneQuestion } from './grid';

const N = 60;
const run = buildRun([
  {
    docId: 'd',
    name: 'd',
    source: 'x'.repeat(N * 10),
    starts: Uint32Array.from({ length: N }, (_, i) => i * 10),
    ends: Uint32Array.from({ length: N }, (_, i) => i * 10 + 10),
    words: new Uint32Array(N).fill(10),
    labels: Array.from({ length: N }, (_, i) => `#${i}`),
  },
]);

/*
 * A planted optimum for the context relation at w_rel 0.3 with a budget of one fragment. Inside
 * the document, Eq. 9 gives a fragment whose two direct neighbours score h an environment of
 * (1 - w_rel) h = 0.7 h.
 * - Type A: the gold (0.5) sits between two fragments of 0.5 (environment 0.35); an isolated
 *   distractor scores 0.71. The gold wins only when 0.5 + 0.35 alpha > 0.71: alpha > 0.6.
 * - Type B: an isolated gold scores 0.8; a distractor of 0.422 sits between two of 0.6
 *   (environment 0.42) and wins when 0.422 + 0.42 alpha > 0.8: alpha > 0.9.
 * So of the grid's alphas only 0.75 retrieves both; plain retrieval gets type B only.
 */
function typeA(g: number, d: number): TuneQuestion {
  const s = new Float64Array(N);
  s[g] = 0.5;
  s[g - 1] = 0.5;
  s[g + 1] = 0.5;
  s[d] = 0.71;
  return { independent: s, gold: [[g]] };
}
function typeB(g: number, e: number): TuneQuestion {
  const s = new Float64Array(N);
  s[g] = 0.8;
  s[e] = 0.422;
  s[e - 1] = 0.6;
  s[e + 1] = 0.6;
  return { independent: s, gold: [[g]] };
}
const questions = [
  ...Array.from({ length: 10 }, (_, k) => typeA(8 + k, 50)),
  ...Array.from({ length: 10 }, (_, k) => typeB(8 + k, 45)),
];
const paper: TuneConfig = { relations: ['context'], alpha: 0.5, wRel: 0.3 };

describe('the per-document tuner', () => {
  it('finds the planted alpha, with its curve and its confidence', async () => {
    const report = await tune(run, questions, {
      grid: { ...defaultTuneGrid, relationSets: [['context']], wRels: [0.3] },
      budgets: [10],
      current: paper,
      resamples: 300,
    });
    expect(report.chosen).toMatchObject({ relations: ['context'], alpha: 0.75, wRel: 0.3 });
    expect(report.chosen.score).toBe(1);
    expect(report.plain.score).toBe(0.5);
    expect(report.current.score).toBe(0.5); // alpha 0.5 is still below 0.6: type B only
    const curve = report.curves[0];
    expect(curve.label).toBe('context');
    expect(curve.points.map((p) => p.alpha)).toEqual([0, 0.1, 0.25, 0.5, 0.75, 1, 1.5]);
    expect(curve.points.map((p) => p.score)).toEqual([0.5, 0.5, 0.5, 0.5, 1, 0.5, 0.5]);
    expect(report.vsPlain.mean).toBeCloseTo(0.5, 12);
    expect(report.vsPlain.ci95[0]).toBeGreaterThan(0);
    expect(report.vsCurrent.better).toBe(10);
    expect(report.vsCurrent.worse).toBe(0);
    expect(report.probabilityBest).toBe(1);
    expect(report.recommendation).toBe('chosen');
    expect(report.questions).toBe(20);
  });

  it('keeps the current configuration when nothing beats it, and evaluates it off the grid', async () => {
    const onlyB = questions.slice(10);
    const current: TuneConfig = { relations: ['context'], alpha: 2, wRel: 0.3 };
    const report = await tune(run, onlyB, {
      grid: { ...defaultTuneGrid, relationSets: [['context']], wRels: [0.3] },
      budgets: [10],
      current: { relations: [], alpha: 0.5, wRel: 0.3 },
      resamples: 100,
    });
    // Plain (the current one here) retrieves every type B question: a tie goes to it.
    expect(report.chosen.relations).toEqual([]);
    expect(report.chosen.score).toBe(1);
    expect(report.recommendation).toBe('current');
    const off = await tune(run, onlyB, {
      grid: { ...defaultTuneGrid, relationSets: [['context']], wRels: [0.3] },
      budgets: [10],
      current,
      resamples: 100,
    });
    expect(off.current).toMatchObject({ alpha: 2, score: 0 });
    expect(off.configs.some((c) => c.alpha === 2)).toBe(true);
    expect(off.chosen.score).toBe(1);
    expect(off.vsCurrent.mean).toBe(1);
  });

  it('leaves the semantic kind out when the run has no semantic relation, and refuses no questions', async () => {
    const report = await tune(run, questions, { budgets: [10], current: paper, resamples: 50 });
    expect(report.configs.some((c) => c.relations.includes('semantic'))).toBe(false);
    expect(report.curves.map((c) => c.label)).toEqual(['context', 'ppr']);
    expect(report.chosen.score).toBe(1);
    await expect(tune(run, [], { budgets: [10], current: paper })).rejects.toThrow(/no question/);
  });

  it('stops when cancelled', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(
      tune(run, questions, { budgets: [10], current: paper, signal: controller.signal }),
    ).rejects.toThrow(/cancelled/);
  });

  it('lists each configuration once, plain first', () => {
    const configs = gridConfigs(defaultTuneGrid);
    expect(configs[0]).toEqual({ relations: [], alpha: 0, wRel: 0 });
    // context 4 x 6, semantic 6 (w_rel does not apply), ppr 4 x 6, context+semantic 4 x 6.
    expect(configs).toHaveLength(1 + 24 + 6 + 24 + 24);
  });
});
