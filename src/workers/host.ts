/**
 * @file The worker side of the protocol: register handlers by kind; each gets its payload, an
 * AbortSignal that fires when the UI cancels, and a progress reporter.
 */
import { serializeError, type Progress, type WorkerRequest, type WorkerResponse } from './protocol';

export interface HandlerContext {
  signal: AbortSignal;
  progress: (p: Progress) => void;
  /** Buffers to transfer with the result (never touched again by the worker). */
  transfer: (buffers: Transferable[]) => void;
}

export type Handler = (payload: never, ctx: HandlerContext) => unknown | Promise<unknown>;

interface WorkerScope {
  addEventListener(type: 'message', listener: (event: MessageEvent<WorkerRequest>) => void): void;
  postMessage(message: WorkerResponse, transfer?: Transferable[]): void;
}

export function serveWorker(scope: WorkerScope, handlers: Record<string, Handler>): void {
  const running = new Map<number, AbortController>();
  scope.addEventListener('message', async (event) => {
    const message = event.data;
    if (message.type === 'cancel') {
      running.get(message.id)?.abort();
      return;
    }
    const { id, kind, payload } = message;
    const handler = handlers[kind];
    if (!handler) {
      scope.postMessage({
        type: 'error',
        id,
        error: {
          name: 'UnknownMessageKind',
          message: `Worker has no handler for "${kind}". Known: ${Object.keys(handlers).join(', ')}.`,
        },
      });
      return;
    }
    const controller = new AbortController();
    running.set(id, controller);
    let transfer: Transferable[] = [];
    try {
      const result = await handler(payload as never, {
        signal: controller.signal,
        progress: (progress) => scope.postMessage({ type: 'progress', id, progress }),
        transfer: (buffers) => {
          transfer = buffers;
        },
      });
      scope.postMessage({ type: 'result', id, result }, transfer);
    } catch (error) {
      scope.postMessage({ type: 'error', id, error: serializeError(error) });
    } finally {
      running.delete(id);
    }
  });
}
