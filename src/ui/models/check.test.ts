import { describe, expect, it } from 'vitest';
import {
  CUSTOM_MODEL,
  analyse,
  formatBytes,
  parseRankingSets,
  rankSets,
  settingsFromUrl,
} from './check';

describe('settingsFromUrl', () => {
  it('reads model, host, device, dtype and batch', () => {
    const { settings, problems } = settingsFromUrl(
      '?model=tribuo-tinybert&host=http%3A%2F%2F127.0.0.1%3A9%2F&device=webgpu&dtype=fp32&batch=2&batchTokens=0&threads=2',
    );
    expect(problems).toEqual([]);
    expect(settings).toEqual({
      choice: 'tribuo-tinybert',
      customId: '',
      host: 'http://127.0.0.1:9/',
      device: 'webgpu',
      dtype: 'fp32',
      batchSize: 2,
      batchTokens: 0,
      threads: 2,
    });
  });

  it('ranks passages: sets from text, cosines best first', () => {
    const sets = parseRankingSets('q1\np1\np2\n\n  \nq2\np3\n\nlonely query');
    expect(sets).toEqual([
      { query: 'q1', passages: ['p1', 'p2'] },
      { query: 'q2', passages: ['p3'] },
    ]);
    const ranked = rankSets(
      sets,
      Float32Array.from([1, 0, 0, 1]),
      Float32Array.from([0.6, 0.8, 1, 0, 0, 1]),
      2,
    );
    expect(ranked[0].scores.map((x) => +x.toFixed(3))).toEqual([0.6, 1]);
    expect(ranked[0].order).toEqual([1, 0]);
    expect(ranked[1].scores).toEqual([1]);
  });

  it('puts an unknown model in the hub id box', () => {
    const { settings } = settingsFromUrl('?model=org/other');
    expect(settings).toMatchObject({ choice: CUSTOM_MODEL, customId: 'org/other' });
  });

  it('defaults, and reports bad values instead of failing', () => {
    const { settings, problems } = settingsFromUrl('?device=tpu&dtype=int3&batch=0&batchTokens=-5');
    expect(settings).toMatchObject({
      choice: 'all-MiniLM-L6-v2',
      host: 'https://huggingface.co/',
      device: 'auto',
      dtype: '',
      batchSize: 16,
      batchTokens: 2048,
    });
    expect(problems).toHaveLength(4);
  });
});

describe('analyse', () => {
  const v = (...x: number[]) => Float32Array.from(x);
  it('computes norms, batch vs single differences, equal-text spread and query cosines', () => {
    const texts = ['a', 'b', 'a'];
    const batch = [v(1, 0), v(0, 1), v(1, 0)];
    const single = [v(1, 0), v(0, 0.5), v(1, 0)];
    const n = analyse(texts, batch, single, v(0.6, 0.8));
    expect(n.norms).toEqual([1, 1, 1]);
    expect(n.batchVsSingle).toEqual([0, 0.5, 0]);
    expect(n.equalTextDiff).toBe(0);
    expect(n.queryCosines.map((c) => +c.toFixed(6))).toEqual([0.6, 0.8, 0.6]);
  });

  it('formats bytes', () => {
    expect(formatBytes(500)).toBe('500 B');
    expect(formatBytes(2048)).toBe('2.0 kB');
    expect(formatBytes(5 * 1024 * 1024)).toBe('5.0 MB');
  });
});
