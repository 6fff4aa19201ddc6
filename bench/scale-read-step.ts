/**
 * @file One step of the `scale-read` benchmark (bench/scale.ts), run in its own Node process:
 * `node --import tsx bench/scale-read-step.ts <step> <file>` prints one JSON line with the wall
 * time, the RSS before and its peak (sampled every 20 ms, and the kernel's high-water mark) and the
 * progress reports.
 */
import { openAsBlob } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ingestFiles } from '../src/ingest/ingest';
import { readBytesStreaming } from '../src/ingest/stream-read';
import { splitProse } from '../src/core/fragment';
import type { Fragment } from '../src/core/types';
import { labelFragments } from '../src/core/sections';
import { staticEmbedder } from '../src/models/embedder';
import { loadGloveFromDisk } from '../test/glove';

/**
 * The book read and split as the index worker does (src/indexing/book.ts): the fragments come split
 * as the file streamed in (plain text), else it is split whole here.
 */
async function readAndSplit(file: File | (Blob & { name: string }), count: () => void) {
  const { documents, errors } = await ingestFiles([file], {
    onProgress: count,
    split: { wordsPerFragment: 500 },
  });
  if (errors.length > 0) throw new Error(errors[0].message);
  const { text, sections, fragments } = documents[0];
  const split = fragments ?? columns(splitProse('big', text, { wordsPerFragment: 500 }));
  labelFragments(split.starts, sections);
  return { text, ...split };
}

function columns(fragments: Fragment[]) {
  return {
    starts: Uint32Array.from(fragments, (f) => f.start),
    ends: Uint32Array.from(fragments, (f) => f.end),
  };
}

export const STEPS = [
  'arrayBuffer',
  'stream',
  'stream, cancelled at 50 MB',
  'ingestFiles',
  'read and split',
  'read, split, embed',
];

export interface ReadStepResult {
  how: string;
  mib: number;
  ms: number;
  rssBeforeMiB: number;
  peakRssMiB: number;
  /** The kernel's high-water mark of the process (getrusage), which 20 ms sampling can miss. */
  maxRssMiB: number;
  progressReports: number;
}

const mib = (bytes: number) => Math.round(bytes / 2 ** 20);

async function main(how: string, path: string): Promise<ReadStepResult> {
  const file = Object.assign(await openAsBlob(path), { name: 'big.txt' });
  // The GloVe table (about 160 MB) is loaded before the RSS baseline: it is the model, not the book.
  const embedder = how === 'read, split, embed' ? staticEmbedder(loadGloveFromDisk()) : null;
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
  } else if (how === 'read and split' || how === 'read, split, embed') {
    // What the index worker does with a dropped book before its relation (src/indexing/book.ts).
    const { text, starts, ends } = await readAndSplit(file, count);
    if (embedder) {
      const texts = Array.from(starts, (s, i) => text.slice(s, ends[i]));
      await embedder.embed(texts, { kind: 'passage' });
    }
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
    maxRssMiB: mib(process.resourceUsage().maxRSS * 1024),
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
