/**
 * @file transformers.js progress events mapped to our `Progress` (src/workers/protocol.ts).
 *
 * transformers.js reports a discriminated union per file (`initiate`, `download`, `progress`,
 * `done`) plus an aggregate (`progress_total`) and `ready`. We turn it into one byte counter,
 * stage 'download', whose `done` never decreases and never exceeds `total`: a late-discovered
 * file may grow `total`, and a cache read that restarts a file's count never moves the bar back.
 */
import type { Progress } from '../core/types';

/** The subset of transformers.js's `ProgressInfo` we read (utils/core.js in the library). */
export type TransformersProgressInfo =
  | { status: 'initiate'; name: string; file: string }
  | { status: 'download'; name: string; file: string }
  | {
      status: 'progress';
      name: string;
      file: string;
      progress: number;
      loaded: number;
      total: number;
    }
  | { status: 'progress_total'; name: string; progress: number; loaded: number; total: number }
  | { status: 'done'; name: string; file: string }
  | { status: 'ready'; task: string; model: string };

export const DOWNLOAD_STAGE = 'download';

/**
 * A stateful mapper: feed it every transformers.js event; it calls `emit` with monotone
 * download progress (bytes) when the numbers move. Per-file counts are kept here rather than
 * trusting `progress_total`, which only exists when the library got file sizes up front.
 */
export function createDownloadProgress(emit: (p: Progress) => void): (info: unknown) => void {
  const files = new Map<string, { loaded: number; total: number }>();
  let done = 0;
  let total = 0;
  let expected = 0;
  const publish = () => {
    let loaded = 0;
    let size = 0;
    for (const f of files.values()) {
      loaded += f.loaded;
      size += Math.max(f.total, f.loaded);
    }
    const nextDone = Math.max(done, loaded);
    const nextTotal = Math.max(total, size, expected, nextDone);
    if (nextDone === done && nextTotal === total) return;
    done = nextDone;
    total = nextTotal;
    emit({ stage: DOWNLOAD_STAGE, done, total });
  };
  return (raw: unknown) => {
    const info = raw as TransformersProgressInfo;
    switch (info?.status) {
      case 'initiate':
        if (!files.has(info.file)) files.set(info.file, { loaded: 0, total: 0 });
        return;
      case 'progress': {
        const prev = files.get(info.file) ?? { loaded: 0, total: 0 };
        files.set(info.file, {
          loaded: Math.max(prev.loaded, finite(info.loaded)),
          total: Math.max(prev.total, finite(info.total)),
        });
        publish();
        return;
      }
      case 'done': {
        const prev = files.get(info.file);
        // A file that reported sizes is complete; one that never did (a tiny JSON) adds nothing.
        if (prev)
          files.set(info.file, { loaded: Math.max(prev.loaded, prev.total), total: prev.total });
        publish();
        return;
      }
      case 'progress_total':
        // Carries the sizes the library learnt up front (ranged requests), so the bar's total
        // is right from the first event instead of growing file by file.
        expected = Math.max(expected, finite(info.total));
        publish();
        return;
      default:
        // 'download' and 'ready' add nothing the per-file counts lack.
        return;
    }
  };
}

function finite(x: number): number {
  return Number.isFinite(x) && x > 0 ? x : 0;
}
