/**
 * @file A scripted OpenAI-compatible chat server on 127.0.0.1 for end-to-end tests.
 *
 * `POST /v1/chat/completions` answers with the next scripted reply: a streamed answer (server-sent
 * events cut at awkward places, CRLF line ends and keep-alive comments, as real servers send
 * them), an HTTP error with a JSON body and headers, or a stream whose connection is destroyed
 * halfway. CORS is answered as a real API does for a browser page on another origin, with
 * Retry-After exposed. Every request is recorded with its headers and body.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type Reply =
  /** A streamed answer, sent in `pieces` (one content delta each) `delayMs` apart. */
  | { kind: 'answer'; pieces: string[]; delayMs?: number }
  /** An HTTP error answer. */
  | { kind: 'error'; status: number; body: unknown; headers?: Record<string, string> }
  /** A stream that sends `pieces`, then loses its connection. */
  | { kind: 'drop'; pieces: string[]; delayMs?: number };

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: {
    model?: string;
    messages?: Array<{ role: string; content: string }>;
    stream?: boolean;
    max_tokens?: number;
  } | null;
}

export interface OpenAiServer {
  /** Origin, e.g. http://127.0.0.1:41234 (the base URL is `${url}/v1`). */
  url: string;
  requests: RecordedRequest[];
  /** Replies for the next completions, in order; when empty, `routes`, then `fallback`, answer. */
  replies: Reply[];
  /**
   * Replies chosen by the request's messages (all contents joined): the first route whose phrase
   * they contain answers. For pipelines, whose concurrent calls arrive in no fixed order.
   */
  routes: Array<{ when: string | RegExp; reply: Reply }>;
  fallback: Reply;
  close(): Promise<void>;
}

const CORS = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Expose-Headers': 'Retry-After',
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function delta(content: string, finish: string | null = null): string {
  return `data: ${JSON.stringify({
    id: 'chatcmpl-test',
    object: 'chat.completion.chunk',
    model: 'test-model',
    choices: [{ index: 0, delta: { content }, finish_reason: finish }],
  })}\r\n\r\n`;
}

/** Write `text` in two parts, cut in the middle, so events straddle network writes. */
async function writeSplit(res: ServerResponse, text: string, delayMs: number): Promise<void> {
  const cut = Math.floor(text.length / 2);
  res.write(text.slice(0, cut));
  await sleep(delayMs / 2);
  if (!res.destroyed) res.write(text.slice(cut));
  await sleep(delayMs / 2);
}

async function stream(res: ServerResponse, reply: Extract<Reply, { pieces: string[] }>) {
  res.writeHead(200, {
    ...CORS,
    'Content-Type': 'text/event-stream; charset=utf-8',
    'Cache-Control': 'no-cache',
  });
  res.write(': keep-alive\r\n\r\n');
  const delayMs = reply.delayMs ?? 40;
  for (const piece of reply.pieces) {
    if (res.destroyed) return;
    await writeSplit(res, delta(piece), delayMs);
  }
  if (reply.kind === 'drop') {
    // Half an event, then the connection is gone: no end of the chunked body.
    res.write('data: {"choices":[{"delta":{"content":"never');
    await sleep(20);
    res.socket?.destroy();
    return;
  }
  res.write(delta('', 'stop'));
  res.end('data: [DONE]\r\n\r\n');
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export async function startOpenAiServer(): Promise<OpenAiServer> {
  const server = createServer((req, res) => {
    void handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500, CORS);
      res.end(String(error));
    });
  });
  const state: OpenAiServer = {
    url: '',
    requests: [],
    replies: [],
    routes: [],
    fallback: { kind: 'answer', pieces: ['Hello.'] },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((e) => (e ? reject(e) : resolve()));
      }),
  };

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const path = req.url ?? '/';
    if (req.method === 'OPTIONS') {
      state.requests.push({ method: 'OPTIONS', path, headers: req.headers, body: null });
      res.writeHead(204, {
        ...CORS,
        'Access-Control-Allow-Methods': 'POST, OPTIONS',
        'Access-Control-Allow-Headers': 'authorization, content-type, accept',
        'Access-Control-Max-Age': '600',
      });
      res.end();
      return;
    }
    const text = await readBody(req);
    let body: RecordedRequest['body'] = null;
    try {
      body = JSON.parse(text) as RecordedRequest['body'];
    } catch {
      // recorded as null
    }
    state.requests.push({ method: req.method ?? 'GET', path, headers: req.headers, body });
    if (req.method !== 'POST' || path !== '/v1/chat/completions') {
      res.writeHead(404, { ...CORS, 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ error: { message: `No route ${req.method} ${path}` } }));
      return;
    }
    const prompt = (body?.messages ?? []).map((m) => m.content).join('\n');
    const routed = state.routes.find((r) =>
      typeof r.when === 'string' ? prompt.includes(r.when) : r.when.test(prompt),
    );
    const reply = state.replies.shift() ?? routed?.reply ?? state.fallback;
    if (reply.kind === 'error') {
      res.writeHead(reply.status, {
        ...CORS,
        'Content-Type': 'application/json',
        ...(reply.headers ?? {}),
      });
      res.end(JSON.stringify(reply.body));
      return;
    }
    await stream(res, reply);
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return state;
}
