/**
 * @file A plain static file server for end-to-end tests: what GitHub Pages or
 * `python3 -m http.server` give a deployment, and nothing more. It serves a folder (the built
 * app) under a sub-path, with a content type by file extension, `index.html` for a folder and a
 * redirect to add a folder's missing slash, and sends no COOP/COEP/CORP headers, so the page can
 * only be cross-origin isolated by the app's own service worker (docs/deploy.md).
 */
import { createReadStream } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.webmanifest': 'application/manifest+json',
  '.wasm': 'application/wasm',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
  '.map': 'application/json',
};

export interface StaticServer {
  /** The app's URL, with the sub-path and a trailing slash. */
  url: string;
  origin: string;
  /** Every request's path and status, in order. */
  requests: Array<{ path: string; status: number }>;
  /** Set to change what a file serves from now on (a new version of the app); null serves it as it is. */
  patch: ((file: string, bytes: Buffer) => Buffer) | null;
  close(): Promise<void>;
}

/** Serve `root` at `http://127.0.0.1:port{prefix}`; port 0 picks a free one. */
export async function startStaticServer(
  root: string,
  prefix: string,
  port = 0,
): Promise<StaticServer> {
  const base = `/${prefix.replace(/^\/+|\/+$/g, '')}/`.replace(/^\/\/$/, '/');
  const requests: StaticServer['requests'] = [];
  // Read by the handler at each request; set once the server listens.
  let served: StaticServer | null = null;
  const server = createServer((req, res) => {
    const entry = { path: req.url ?? '', status: 0 };
    requests.push(entry);
    const send = (status: number, headers: Record<string, string> = {}, body = '') => {
      entry.status = status;
      res.writeHead(status, headers);
      res.end(body);
    };
    void (async () => {
      const urlPath = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
      if (urlPath === base.slice(0, -1)) return send(301, { Location: base });
      if (!urlPath.startsWith(base)) return send(404, {}, 'Not found');
      let file = path.resolve(root, '.' + urlPath.slice(base.length - 1));
      if (file !== root && !file.startsWith(root + path.sep)) return send(404, {}, 'Not found');
      let info = await stat(file).catch(() => null);
      if (info?.isDirectory()) {
        if (!urlPath.endsWith('/')) return send(301, { Location: `${urlPath}/` });
        file = path.join(file, 'index.html');
        info = await stat(file).catch(() => null);
      }
      if (!info?.isFile()) return send(404, {}, 'Not found');
      const patch = served?.patch;
      if (patch) {
        const bytes = patch(path.relative(root, file), await readFile(file));
        entry.status = 200;
        res.writeHead(200, {
          'Content-Type': TYPES[path.extname(file)] ?? 'application/octet-stream',
          'Content-Length': String(bytes.length),
        });
        return void res.end(req.method === 'HEAD' ? undefined : bytes);
      }
      entry.status = 200;
      res.writeHead(200, {
        'Content-Type': TYPES[path.extname(file)] ?? 'application/octet-stream',
        'Content-Length': String(info.size),
      });
      if (req.method === 'HEAD') return void res.end();
      createReadStream(file).pipe(res);
    })().catch((error: unknown) => send(500, {}, String(error)));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  served = {
    url: `${origin}${base}`,
    origin,
    requests,
    patch: null,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((e) => (e ? reject(e) : resolve()));
      }),
  };
  return served;
}
