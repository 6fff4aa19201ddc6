/**
 * @file The worker side of the protocol: register handlers by kind; each gets its payload, an
 * AbortSignal that fires when the UI cancels, and a progress reporter.
 */
import {
  serializeError,
  type Progress,
  type WorkerApi,
  type WorkerRequest,
  type WorkerResponse,
} from './protocol';

export interface HandlerContext {
  signal: AbortSignal;
  progress: (p: Progress) => void;
  /** Buffers to transfer with the result (never touched again by the worker). */
  transfer: (buffers: Transferable[]) => void;
}

/** Any one handler, as the message loop sees it (`never`: it accepts whatever payload it declares). */
export type Handler = (payload: never, ctx: HandlerContext) => unknown | Promise<unknown>;

/** A worker's handlers, one per kind of its API, each typed by its endpoint. */
export type Handlers<Api extends WorkerApi<Api>> = {
  [K in keyof Api]: (
    payload: Api[K]['payload'],
    ctx: HandlerContext,
  ) => Api[K]['result'] | Promise<Api[K]['result']>;
};

interface WorkerScope {
  addEventListener(type: 'message', listener: (event: MessageEvent<WorkerRequest>) => void): void;
  postMessage(message: WorkerResponse, transfer?: Transferable[]): void;
}

export function serveWorker<Api extends WorkerApi<Api>>(
  scope: WorkerScope,
  typedHandlers: Handlers<Api>,
): void {
  // Kinds arrive as strings; the unknown kind is answered below.
  const handlers = typedHandlers as unknown as Record<string, Handler | undefined>;
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
    const progress = throttledProgress((p) =>
      scope.postMessage({ type: 'progress', id, progress: p }),
    );
    try {
      const result = await handler(payload as never, {
        signal: controller.signal,
        progress: progress.report,
        transfer: (buffers) => {
          transfer = buffers;
        },
      });
      scope.postMessage({ type: 'result', id, result }, transfer);
    } catch (error) {
      scope.postMessage({ type: 'error', id, error: serializeError(error) });
    } finally {
      progress.stop();
      running.delete(id);
    }
  });
}

/** Least time between two progress messages of one request within a stage. */
export const PROGRESS_INTERVAL_MS = 50;

/**
 * Progress as the UI needs it: every new stage and every stage's end at once, otherwise at most one
 * message per PROGRESS_INTERVAL_MS (the latest; `done` never decreases, so skipping is safe). One
 * message per file of a 30,000-file repository cost the UI thread a re-render each.
 */
export function throttledProgress(
  post: (p: Progress) => void,
  now: () => number = () => performance.now(),
): { report: (p: Progress) => void; stop: () => void } {
  let stage: string | null = null;
  let postedAt = -Infinity;
  let pending: Progress | null = null;
  let timer: ReturnType<typeof setTimeout> | null = null;
  let stopped = false;
  const send = (p: Progress) => {
    pending = null;
    stage = p.stage;
    postedAt = now();
    post(p);
  };
  return {
    report(p) {
      if (stopped) return;
      if (p.stage !== stage || p.done >= p.total || now() - postedAt >= PROGRESS_INTERVAL_MS) {
        send(p);
        return;
      }
      pending = p;
      // The latest skipped report still arrives if no other follows soon.
      timer ??= setTimeout(() => {
        timer = null;
        if (pending && !stopped) send(pending);
      }, PROGRESS_INTERVAL_MS);
    },
    stop() {
      stopped = true;
      if (timer !== null) clearTimeout(timer);
    },
  };
}
