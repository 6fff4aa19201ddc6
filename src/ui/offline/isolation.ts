/**
 * @file Cross-origin isolation on a host that does not send the headers (docs/deploy.md).
 *
 * The service worker adds COOP/COEP to every response of our origin (src/sw/isolation-headers.ts),
 * but a page is isolated or not from the moment its document arrives: the visit that installs the
 * worker stays on one thread. So once the worker is active and the page is not isolated, the page
 * reloads itself, once, the way coi-serviceworker does, with two guards:
 *
 * - **Never in the middle of a task.** Once the reader has done anything (a click, a key, a drop,
 *   a paste), the page offers the reload instead of doing it.
 * - **No loops.** A mark in sessionStorage says a load is the page's own reload; if that load is
 *   still not isolated (a browser that ignores a worker's headers), the page gives up and
 *   remembers it for a day in localStorage, so later visits do not reload for nothing.
 *
 * On a host that sends the headers (`vite preview`, a configured server) the page is isolated
 * from the start and none of this runs.
 */

const RELOAD_MARK = 'fragrel-lens:isolation-reload';
const GAVE_UP = 'fragrel-lens:isolation-unavailable';
const GIVE_UP_FOR_MS = 24 * 60 * 60 * 1000;

export type IsolationStep =
  /** Nothing to do: isolated already, or no service worker to help. */
  | 'none'
  /** Reload now: the worker is active and nothing is lost. */
  | 'reload'
  /** Offer the reload: the reader has started something. */
  | 'offer'
  /** Our own reload did not isolate the page: stop trying. */
  | 'give-up';

export interface IsolationState {
  isolated: boolean;
  /** Whether the browser has service workers (a secure context that allows them). */
  serviceWorkers: boolean;
  /** This load is the page's own reload for isolation. */
  reloadedBySelf: boolean;
  /** A reload for isolation failed within the last day. */
  gaveUpRecently: boolean;
  /** The reader has done something on the page since it loaded. */
  busy: boolean;
}

/** What to do once the service worker is active (pure: the rules above, tested alone). */
export function isolationStep(s: IsolationState): IsolationStep {
  if (s.isolated || !s.serviceWorkers) return 'none';
  if (s.reloadedBySelf) return 'give-up';
  if (s.gaveUpRecently) return 'none';
  return s.busy ? 'offer' : 'reload';
}

function storageGet(storage: () => Storage, key: string): string | null {
  try {
    return storage().getItem(key);
  } catch {
    return null; // storage refused (a sandboxed frame, a browser setting): act as if empty
  }
}

function storageSet(storage: () => Storage, key: string, value: string | null): void {
  try {
    if (value === null) storage().removeItem(key);
    else storage().setItem(key, value);
  } catch {
    // as above
  }
}

// Read and cleared at once, at the first import (before the app renders): the mark belongs to
// this one load.
const reloadedBySelf = storageGet(() => sessionStorage, RELOAD_MARK) !== null;
storageSet(() => sessionStorage, RELOAD_MARK, null);

let busy = false;
if (typeof window !== 'undefined') {
  const ACTIVITY = ['pointerdown', 'keydown', 'drop', 'paste'] as const;
  const started = () => {
    busy = true;
    for (const type of ACTIVITY) window.removeEventListener(type, started, true);
  };
  for (const type of ACTIVITY) window.addEventListener(type, started, true);
}

/** Whether this load is the page's own reload for isolation (the worker installed just before). */
export function reloadedForIsolation(): boolean {
  return reloadedBySelf;
}

/** Reload the page for isolation, marked so that a failed attempt is not repeated. */
export function reloadForIsolation(): void {
  storageSet(() => sessionStorage, RELOAD_MARK, String(Date.now()));
  location.reload();
}

/**
 * Call once, early (the page's service worker registration): waits until the worker is active,
 * then reloads or calls `offer` (show a "Reload" button that calls `reloadForIsolation`).
 */
export function watchIsolation(offer: () => void): void {
  const hasWorkers = 'serviceWorker' in navigator;
  const gaveUpAt = Number(storageGet(() => localStorage, GAVE_UP) ?? 0);
  const state = (): IsolationState => ({
    isolated: self.crossOriginIsolated === true,
    serviceWorkers: hasWorkers,
    reloadedBySelf,
    gaveUpRecently: Date.now() - gaveUpAt < GIVE_UP_FOR_MS,
    busy,
  });
  const first = isolationStep(state());
  if (first === 'none') {
    if (self.crossOriginIsolated) storageSet(() => localStorage, GAVE_UP, null);
    return;
  }
  if (first === 'give-up') {
    console.warn(
      'FragRel: the service worker did not make this page cross-origin isolated; ' +
        'wasm runs on one thread here.',
    );
    storageSet(() => localStorage, GAVE_UP, String(Date.now()));
    return;
  }
  void navigator.serviceWorker.ready.then(() => {
    const step = isolationStep(state());
    if (step === 'reload') reloadForIsolation();
    else if (step === 'offer') offer();
  });
}
