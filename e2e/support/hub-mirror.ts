/**
 * @file A tiny local Hugging Face hub mirror for end-to-end tests.
 *
 * Serves ../shared/models and the real weights `npm run models` fetched (both read in place,
 * never copied) in the hub's URL layout:
 * `/{model}/resolve/{revision}/{file}` → `<root>/{model}/{file}`, and
 * `/{org}/{model}/resolve/{revision}/{file}` → `<root>/{org}/{model}/{file}` if that folder
 * exists, else `<root>/{model}/{file}`. Missing files are 404. GET, HEAD and single byte ranges
 * (transformers.js sizes files with `Range: bytes=0-0`).
 *
 * The app page is cross-origin isolated (COEP require-corp), so every answer carries CORS and
 * `Cross-Origin-Resource-Policy: cross-origin`. Every request is recorded for assertions.
 */
import { createReadStream, existsSync, type ReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { homedir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** ../shared/models next to the repository: the test models, read in place. */
export const SHARED_MODELS = path.resolve(repoRoot, '../shared/models');

/**
 * Where `npm run models` puts the real weights, in the hub layout (same rule as
 * scripts/models.mjs: FRAGREL_MODELS_DIR, default ~/.cache/fragrel-lens/models).
 */
export const REAL_MODELS_HUB = path.join(
  path.resolve(
    process.env.FRAGREL_MODELS_DIR || path.join(homedir(), '.cache', 'fragrel-lens', 'models'),
  ),
  'hub',
);

function defaultRoots(): string[] {
  return existsSync(REAL_MODELS_HUB) ? [SHARED_MODELS, REAL_MODELS_HUB] : [SHARED_MODELS];
}

export interface MirrorRequest {
  method: string;
  /** Path and query as asked, e.g. `/tribuo-tinybert/resolve/main/config.json`. */
  path: string;
  status: number;
  range?: string;
  /** True once the whole answer was sent. */
  finished: boolean;
  /** True when the client closed the connection before the answer was complete. */
  aborted: boolean;
}

/** Slow down matching files, to test progress and cancelling downloads. */
export interface Throttle {
  /** Tested against the request path. */
  match: RegExp;
  bytesPerSecond: number;
}

export interface HubMirror {
  /** Base URL with a trailing slash, e.g. `http://127.0.0.1:41234/`: the hub host setting. */
  url: string;
  port: number;
  /** Every request so far, in order. */
  requests: MirrorRequest[];
  /** Set to throttle some files from now on; null (the default) serves at full speed. */
  throttle: Throttle | null;
  close(): Promise<void>;
}

const CONTENT_TYPES: Record<string, string> = {
  '.json': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.md': 'text/markdown; charset=utf-8',
};

const CORS_HEADERS = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Allow-Methods': 'GET, HEAD, OPTIONS',
  'Access-Control-Allow-Headers': '*',
  'Access-Control-Expose-Headers': 'Content-Length, Content-Range, Accept-Ranges, ETag',
  'Cross-Origin-Resource-Policy': 'cross-origin',
};

/**
 * Start a mirror on 127.0.0.1, on a free port. `roots` are tried in order for each request:
 * folders laid out like ../shared/models (`{model}/{file}` or `{org}/{model}/{file}`), or in the
 * hub's own URL layout (`{org}/{model}/resolve/main/{file}`, as `npm run models` writes the real
 * weights). Default: ../shared/models, then the real-model cache when it exists.
 */
export async function startHubMirror(
  roots: string | readonly string[] = defaultRoots(),
): Promise<HubMirror> {
  const rootList = typeof roots === 'string' ? [roots] : [...roots];
  const requests: MirrorRequest[] = [];
  const server = createServer((req, res) => {
    // Recorded when the status is known, before any body: a client may cancel the body.
    const entry: MirrorRequest = {
      method: req.method ?? 'GET',
      path: req.url ?? '',
      status: 0,
      finished: false,
      aborted: false,
    };
    if (req.headers.range) entry.range = req.headers.range;
    requests.push(entry);
    res.on('finish', () => {
      entry.status = res.statusCode;
      entry.finished = true;
    });
    res.on('close', () => {
      if (!entry.finished) entry.aborted = true;
    });
    handle(rootList, req, res, mirror.throttle, (status) => (entry.status = status)).catch(
      (error: unknown) => {
        if (!res.headersSent) res.writeHead(500, CORS_HEADERS);
        res.end(String(error));
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const mirror: HubMirror = {
    url: `http://127.0.0.1:${port}/`,
    port,
    requests,
    throttle: null,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((e) => (e ? reject(e) : resolve()));
      }),
  };
  return mirror;
}

async function handle(
  roots: readonly string[],
  req: IncomingMessage,
  res: ServerResponse,
  throttle: Throttle | null,
  onStatus: (status: number) => void,
): Promise<void> {
  if (req.method === 'OPTIONS') {
    onStatus(204);
    res.writeHead(204, { ...CORS_HEADERS, 'Access-Control-Max-Age': '600' });
    res.end();
    return;
  }
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    onStatus(405);
    notFound(res, 405, 'Method not allowed');
    return;
  }
  const urlPath = new URL(req.url ?? '/', 'http://mirror').pathname;
  let file: Awaited<ReturnType<typeof locate>> = null;
  for (const root of roots) {
    file = await locate(root, urlPath);
    if (file) break;
  }
  if (!file) {
    onStatus(404);
    notFound(res, 404, 'Entry not found');
    return;
  }
  const { size, mtimeMs } = file.stats;
  const headers: Record<string, string> = {
    ...CORS_HEADERS,
    'Content-Type': CONTENT_TYPES[path.extname(file.path)] ?? 'application/octet-stream',
    'Accept-Ranges': 'bytes',
    ETag: `"${size.toString(16)}-${Math.floor(mtimeMs).toString(16)}"`,
    'Cache-Control': 'no-cache',
  };
  let start = 0;
  let end = size - 1;
  let status = 200;
  const range = req.headers.range;
  if (range) {
    const m = /^bytes=(\d*)-(\d*)$/.exec(range.trim());
    if (m && (m[1] !== '' || m[2] !== '')) {
      if (m[1] === '') {
        start = Math.max(0, size - Number(m[2]));
      } else {
        start = Number(m[1]);
        if (m[2] !== '') end = Math.min(end, Number(m[2]));
      }
      if (start >= size || start > end) {
        onStatus(416);
        res.writeHead(416, { ...CORS_HEADERS, 'Content-Range': `bytes */${size}` });
        res.end();
        return;
      }
      status = 206;
      headers['Content-Range'] = `bytes ${start}-${end}/${size}`;
    }
  }
  headers['Content-Length'] = String(end - start + 1);
  onStatus(status);
  res.writeHead(status, headers);
  if (req.method === 'HEAD' || size === 0) {
    res.end();
    return;
  }
  const stream = createReadStream(file.path, { start, end });
  if (throttle?.match.test(req.url ?? '')) {
    await sendSlowly(stream, res, throttle.bytesPerSecond);
    return;
  }
  await new Promise<void>((resolve, reject) => {
    stream.on('error', reject).on('end', resolve).pipe(res);
  });
}

/** Write the stream in small chunks at about `bytesPerSecond`; stop when the client leaves. */
async function sendSlowly(stream: ReadStream, res: ServerResponse, bytesPerSecond: number) {
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    for (let at = 0; at < chunk.length; at += 4096) {
      if (res.destroyed) {
        stream.destroy();
        return;
      }
      const part = chunk.subarray(at, at + 4096);
      res.write(part);
      await new Promise((r) => setTimeout(r, (part.length / bytesPerSecond) * 1000));
    }
  }
  res.end();
}

function notFound(res: ServerResponse, status: number, message: string): void {
  res.writeHead(status, { ...CORS_HEADERS, 'Content-Type': 'text/plain; charset=utf-8' });
  res.end(message);
}

/** Map a hub URL path to a file under root, or null. Never leaves root. */
async function locate(
  root: string,
  urlPath: string,
): Promise<{ path: string; stats: import('node:fs').Stats } | null> {
  let parts: string[];
  try {
    parts = urlPath.split('/').filter(Boolean).map(decodeURIComponent);
  } catch {
    return null;
  }
  if (parts.some((p) => p === '.' || p === '..' || p.includes('\\') || p.includes('\0')))
    return null;
  const at = parts.indexOf('resolve');
  // `{model}/resolve/{rev}/{file...}` or `{org}/{model}/resolve/{rev}/{file...}`
  if ((at !== 1 && at !== 2) || parts.length < at + 3) return null;
  const repo = parts.slice(0, at);
  const rest = parts.slice(at + 2);
  const revision = parts[at + 1];
  const candidates = repo.length === 2 ? [repo, [repo[1]]] : [repo];
  // The hub's own layout first (`{repo}/resolve/{rev}/{file}`), then a plain folder per model.
  const layouts = [...candidates.map((folder) => [...folder, 'resolve', revision]), ...candidates];
  for (const folder of layouts) {
    const full = path.resolve(root, ...folder, ...rest);
    if (!full.startsWith(root + path.sep)) continue;
    try {
      const stats = await stat(full);
      if (stats.isFile()) return { path: full, stats };
    } catch {
      // not in this folder
    }
  }
  return null;
}
