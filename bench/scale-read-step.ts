/**
 * @file One step of the `scale-read` benchmark (bench/scale.ts), run in its own Node process:
 * `node --import tsx bench/scale-read-step.ts <step> <file>` prints one JSON line with the wall
 * time, the RSS before and its peak (sampled every 20 ms) and the progress reports.
 */
import { openAsBlob } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ingestFiles } from '../src/ingest/ingest';
import { readBytesStreaming } from '../src/ingest/stream-read';

export const STEPS = ['arrayBuffer', 'stream', 'stream, cancelled at 50 MB', 'ingestFiles'];

export interface ReadStepResult {
  how: string;
  mib: number;
  ms: number;
  rssBeforeMiB: number;
  peakRssMiB: number;
  progressReports: number;
}

const mib = (bytes: number) => Math.round(bytes / 2 ** 20);

async function main(how: string, path: string): Promise<ReadStepResult> {
  const file = Object.assign(await openAsBlob(path), { name: 'big.txt' });
  const rssBefore = process.memoryUsage().rss;
  let peak = rssBefore;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 20);
  let reports = 0;
  const count = () => void reports++;
  const t0 = performance.now();
  if (how === 'arrayBuffer') {
    await file.arrayBuffer();
  } else if (how === 'stream') {
    await readBytesStreaming(file, undefined, count);
  } else if (how === 'stream, cancelled at 50 MB') {
    const controller = new AbortController();
    await readBytesStreaming(file, controller.signal, (done) => {
      count();
      if (done >= 50 * 2 ** 20) controller.abort();
    }).catch((error: unknown) => {
      if (!(error instanceof Error && error.name === 'AbortError')) throw error;
    });
  } else if (how === 'ingestFiles') {
    const { errors } = await ingestFiles([file], { onProgress: count });
    if (errors.length > 0) throw new Error(errors[0].message);
  } else {
    throw new Error(`Unknown step ${how}; known: ${STEPS.join(', ')}.`);
  }
  const ms = performance.now() - t0;
  clearInterval(timer);
  peak = Math.max(peak, process.memoryUsage().rss);
  return {
    how,
    mib: mib(file.size),
    ms: Math.round(ms),
    rssBeforeMiB: mib(rssBefore),
    peakRssMiB: mib(peak),
    progressReports: reports,
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  main(process.argv[2], process.argv[3]).then(
    (r) => console.log(JSON.stringify(r)),
    (error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    },
  );
}
