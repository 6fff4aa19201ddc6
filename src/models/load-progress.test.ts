import { describe, expect, it } from 'vitest';
import type { Progress } from '../core/types';
import { createDownloadProgress } from './load-progress';

function run(events: unknown[]): Progress[] {
  const out: Progress[] = [];
  const feed = createDownloadProgress((p) => out.push(p));
  events.forEach(feed);
  return out;
}

const progress = (file: string, loaded: number, total: number) => ({
  status: 'progress',
  name: 'm',
  file,
  progress: (loaded / total) * 100,
  loaded,
  total,
});

describe('createDownloadProgress', () => {
  it('sums bytes over files, in stage "download"', () => {
    const out = run([
      { status: 'initiate', name: 'm', file: 'a' },
      progress('a', 10, 100),
      { status: 'initiate', name: 'm', file: 'b' },
      progress('b', 50, 50),
      progress('a', 100, 100),
      { status: 'done', name: 'm', file: 'a' },
      { status: 'ready', task: 'feature-extraction', model: 'm' },
    ]);
    expect(out).toEqual([
      { stage: 'download', done: 10, total: 100 },
      { stage: 'download', done: 60, total: 150 },
      { stage: 'download', done: 150, total: 150 },
    ]);
  });

  it('never lets done decrease, and never lets it pass total', () => {
    const out = run([
      progress('a', 80, 100),
      progress('a', 20, 100), // a restarted read (cache): the bar stays
      progress('b', 30, 0), // no content-length
      progress('a', 100, 100),
    ]);
    for (let i = 1; i < out.length; i++)
      expect(out[i].done).toBeGreaterThanOrEqual(out[i - 1].done);
    for (const p of out) expect(p.done).toBeLessThanOrEqual(p.total);
    expect(out.at(-1)).toEqual({ stage: 'download', done: 130, total: 130 });
  });

  it('takes the total from progress_total when the library knows the sizes up front', () => {
    const out = run([
      { status: 'progress_total', name: 'm', progress: 0, loaded: 5, total: 1000 },
      progress('a', 5, 10),
    ]);
    expect(out).toEqual([
      { stage: 'download', done: 0, total: 1000 },
      { stage: 'download', done: 5, total: 1000 },
    ]);
  });

  it('ignores events it does not know', () => {
    expect(run([null, 42, { status: 'something-new' }])).toEqual([]);
  });
});
