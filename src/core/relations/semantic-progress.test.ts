import { describe, expect, it } from 'vitest';
import { semanticNeighbours } from './semantic';

/** `count` copies of one unit vector (files of one shape embed alike), plus a little noise. */
function nearDuplicates(count: number, dim: number, noise: number): Float32Array {
  const data = new Float32Array(count * dim);
  let seed = 7;
  const rand = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648) * 2 - 1;
  for (let i = 0; i < count; i++) {
    let norm = 0;
    for (let d = 0; d < dim; d++) {
      const v = (d === 0 ? 1 : 0.2) + noise * rand();
      data[i * dim + d] = v;
      norm += v * v;
    }
    for (let d = 0; d < dim; d++) data[i * dim + d] /= Math.sqrt(norm);
  }
  return data;
}

describe('the semantic relation’s progress on near-identical vectors', () => {
  it('advances while the one big cluster is compared with itself, not only at the end', () => {
    const n = 6000;
    const dim = 16;
    const reports: number[] = [];
    // Bit-identical copies (noise 0) are related once per group (duplicates.ts): that work is
    // linear and short, so only near-identical ones make the one big cluster this is about.
    for (const noise of [1e-4, 1e-3]) {
      reports.length = 0;
      semanticNeighbours({ dim, count: n, data: nearDuplicates(n, dim, noise) }, [0, n], 8, {
        method: 'inverted-file',
        onProgress: (done, total) => {
          expect(total).toBe(n);
          reports.push(done);
        },
      });
      // Rows done never go back, and reach N.
      for (let r = 1; r < reports.length; r++)
        expect(reports[r]).toBeGreaterThanOrEqual(reports[r - 1]);
      expect(reports.at(-1)).toBe(n);
      // Several distinct steps strictly between 0 and N: the counter moves during the work.
      const between = new Set(reports.filter((d) => d > 0 && d < n));
      expect(between.size, `noise ${noise}`).toBeGreaterThanOrEqual(3);
    }
  });

  it('reaches N, never going back, when every vector is the same', () => {
    const n = 6000;
    const reports: number[] = [];
    semanticNeighbours({ dim: 16, count: n, data: nearDuplicates(n, 16, 0) }, [0, n], 8, {
      method: 'inverted-file',
      onProgress: (done) => reports.push(done),
    });
    for (let r = 1; r < reports.length; r++)
      expect(reports[r]).toBeGreaterThanOrEqual(reports[r - 1]);
    expect(reports.at(-1)).toBe(n);
  });
});
