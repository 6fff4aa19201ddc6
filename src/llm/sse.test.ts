import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readSse, SseParser, type SseEvent } from './sse';

function parseAll(chunks: string[]): SseEvent[] {
  const parser = new SseParser();
  return chunks.flatMap((c) => parser.push(c));
}

const OPENAI_STREAM =
  'data: {"choices":[{"delta":{"content":"Hel"}}]}\n\n' +
  ': keep-alive\n\n' +
  'data: {"choices":[{"delta":{"content":"lo"}}]}\n\n' +
  'data: [DONE]\n\n';

describe('SseParser', () => {
  it('reads data events, skipping comments', () => {
    expect(parseAll([OPENAI_STREAM]).map((e) => e.data)).toEqual([
      '{"choices":[{"delta":{"content":"Hel"}}]}',
      '{"choices":[{"delta":{"content":"lo"}}]}',
      '[DONE]',
    ]);
  });

  it('gives the same events however the stream is split into chunks', () => {
    const whole = parseAll([OPENAI_STREAM]);
    for (let cut = 1; cut < OPENAI_STREAM.length; cut++) {
      expect(parseAll([OPENAI_STREAM.slice(0, cut), OPENAI_STREAM.slice(cut)])).toEqual(whole);
    }
    expect(parseAll([...OPENAI_STREAM])).toEqual(whole);
  });

  it('accepts CRLF and CR line ends, also split between chunks', () => {
    const crlf = OPENAI_STREAM.replace(/\n/g, '\r\n');
    const cr = OPENAI_STREAM.replace(/\n/g, '\r');
    const whole = parseAll([OPENAI_STREAM]);
    expect(parseAll([crlf])).toEqual(whole);
    expect(parseAll([cr])).toEqual(whole);
    // A CR ending one chunk and its LF starting the next are one line end, not two.
    const at = crlf.indexOf('\r\n') + 1;
    expect(parseAll([crlf.slice(0, at), crlf.slice(at)])).toEqual(whole);
    expect(parseAll([...crlf])).toEqual(whole);
  });

  it('joins multi-line data, reads event names and ids, and strips one leading space', () => {
    const events = parseAll([
      'event: content_block_delta\nid: 7\ndata: line one\ndata:line two\ndata:  indented\n\n',
      'data\n\n',
      'retry: 3000\nunknown: x\ndata: after\n\n',
    ]);
    expect(events).toEqual([
      { event: 'content_block_delta', data: 'line one\nline two\n indented', id: '7' },
      // "data" with no colon is a field with an empty value.
      { event: 'message', data: '', id: '7' },
      { event: 'message', data: 'after', id: '7' },
    ]);
  });

  it('does not dispatch an event without data, nor an unfinished last event', () => {
    expect(parseAll(['event: ping\n\n', ': only a comment\n\n'])).toEqual([]);
    expect(parseAll(['data: complete\n\ndata: cut off'])).toEqual([
      { event: 'message', data: 'complete' },
    ]);
  });

  it('is independent of chunking for any split (property)', () => {
    const stream = 'event: a\r\ndata: 1\r\n\r\n: c\n\ndata: x\ndata: y\r\rdata: [DONE]\n\n';
    const whole = parseAll([stream]);
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: stream.length }), { maxLength: 8 }),
        (cuts) => {
          const points = [...new Set(cuts)].sort((a, b) => a - b);
          const chunks: string[] = [];
          let at = 0;
          for (const p of points) {
            chunks.push(stream.slice(at, p));
            at = p;
          }
          chunks.push(stream.slice(at));
          expect(parseAll(chunks)).toEqual(whole);
        },
      ),
    );
  });
});

describe('readSse', () => {
  it('decodes UTF-8 split inside a character', async () => {
    const bytes = new TextEncoder().encode('data: café ☕\n\n');
    const body = new ReadableStream<Uint8Array>({
      start(c) {
        for (const b of bytes) c.enqueue(new Uint8Array([b]));
        c.close();
      },
    });
    const events: SseEvent[] = [];
    for await (const e of readSse(body)) events.push(e);
    expect(events).toEqual([{ event: 'message', data: 'café ☕' }]);
  });

  it('rejects when the connection breaks, after the events that arrived', async () => {
    let pulls = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(c) {
        if (pulls++ === 0) c.enqueue(new TextEncoder().encode('data: one\n\ndata: tw'));
        else c.error(new TypeError('network error'));
      },
    });
    const events: string[] = [];
    await expect(
      (async () => {
        for await (const e of readSse(body)) events.push(e.data);
      })(),
    ).rejects.toThrow('network error');
    expect(events).toEqual(['one']);
  });
});
