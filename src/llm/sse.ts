/**
 * @file Server-sent events, as the streaming chat APIs send them (WHATWG HTML, "Server-sent
 * events", the event stream interpretation).
 *
 * Lines end in CRLF, LF or CR; a CR at the end of one chunk and an LF at the start of the next
 * are one line end. Lines starting with ':' are comments (servers send them to keep the
 * connection alive). `data:` lines of one event are joined with '\n'. A blank line dispatches
 * the event; an event not ended by a blank line when the stream ends is dropped, as the
 * standard says (it may be cut off).
 */

export interface SseEvent {
  /** The `event:` field, 'message' when absent. */
  event: string;
  data: string;
  /** The `id:` field, when the event had one. */
  id?: string;
}

/** Incremental parser: feed text as it arrives, get the events it completes. */
export class SseParser {
  private buffer = '';
  private data: string[] = [];
  private event = '';
  private id: string | undefined;
  /** The previous chunk ended in CR: an LF starting the next one belongs to it. */
  private pendingCr = false;

  push(chunk: string): SseEvent[] {
    const out: SseEvent[] = [];
    let text = chunk;
    if (this.pendingCr && text.startsWith('\n')) text = text.slice(1);
    this.pendingCr = false;
    this.buffer += text;
    let start = 0;
    for (let i = 0; i < this.buffer.length; i++) {
      const c = this.buffer.charCodeAt(i);
      if (c !== 10 && c !== 13) continue;
      const line = this.buffer.slice(start, i);
      if (c === 13) {
        if (i + 1 < this.buffer.length) {
          if (this.buffer.charCodeAt(i + 1) === 10) i++;
        } else {
          this.pendingCr = true;
        }
      }
      start = i + 1;
      this.line(line, out);
    }
    this.buffer = this.buffer.slice(start);
    return out;
  }

  private line(line: string, out: SseEvent[]): void {
    if (line === '') {
      if (this.data.length) {
        const e: SseEvent = { event: this.event || 'message', data: this.data.join('\n') };
        if (this.id !== undefined) e.id = this.id;
        out.push(e);
      }
      this.data = [];
      this.event = '';
      return;
    }
    if (line.startsWith(':')) return;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') this.data.push(value);
    else if (field === 'event') this.event = value;
    else if (field === 'id' && !value.includes('\0')) this.id = value;
    // 'retry' and unknown fields are ignored.
  }
}

/**
 * The events of a response body, as they arrive. Rejects as the body's reader does: with an
 * AbortError when the request's signal fires, with a TypeError when the connection breaks.
 */
export async function* readSse(body: ReadableStream<Uint8Array>): AsyncGenerator<SseEvent> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const parser = new SseParser();
  let finished = false;
  try {
    while (true) {
      const { done, value } = await reader.read();
      if (done) break;
      yield* parser.push(decoder.decode(value, { stream: true }));
    }
    finished = true;
    yield* parser.push(decoder.decode());
  } finally {
    // A consumer that stops early (or a failure) closes the connection rather than leaving it open.
    if (!finished) reader.cancel().catch(() => {});
    else reader.releaseLock();
  }
}
