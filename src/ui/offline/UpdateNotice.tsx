/**
 * @file The service worker's registration (vite-plugin-pwa) and its announcements: the app is
 * ready to work offline; a new version is waiting (applied only when the reader reloads, so
 * nothing is replaced in the middle of a task); and, on a host without the isolation headers, a
 * reload that turns on the models' threads when the page could not take it by itself
 * (isolation.ts).
 */
import { useEffect, useRef, useState } from 'react';
import { registerSW } from 'virtual:pwa-register';
import { reloadForIsolation, reloadedForIsolation, watchIsolation } from './isolation';

export function UpdateNotice() {
  // After the page's own reload for isolation the worker that was just installed controls it:
  // the "ready to work offline" news the reload cut short is still news.
  const [state, setState] = useState<'none' | 'offline-ready' | 'update'>(() =>
    reloadedForIsolation() && navigator.serviceWorker?.controller ? 'offline-ready' : 'none',
  );
  const [offerIsolation, setOfferIsolation] = useState(false);
  const update = useRef<((reload?: boolean) => Promise<void>) | null>(null);
  useEffect(() => {
    if (!('serviceWorker' in navigator)) return;
    update.current = registerSW({
      onOfflineReady: () => setState('offline-ready'),
      onNeedRefresh: () => setState('update'),
    });
    watchIsolation(() => setOfferIsolation(true));
  }, []);
  return (
    <>
      {state !== 'none' && (
        <p className="stats" role="status" data-testid="offline-status" data-state={state}>
          {state === 'offline-ready' ? (
            'Ready to work offline: the app and your library open without a network.'
          ) : (
            <>
              A new version of FragRel Lens is ready.{' '}
              <button type="button" onClick={() => void update.current?.(true)}>
                Reload to update
              </button>
            </>
          )}
        </p>
      )}
      {offerIsolation && (
        <p className="stats" role="status" data-testid="isolation-offer">
          Reload once to let the models use all {navigator.hardwareConcurrency || 'your'} CPU cores
          (this host does not send the headers for it; the app now adds them itself).{' '}
          <button type="button" onClick={reloadForIsolation}>
            Reload
          </button>
        </p>
      )}
    </>
  );
}
