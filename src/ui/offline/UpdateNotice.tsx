/**
 * @file The service worker's registration (vite-plugin-pwa) and its two announcements: the app
 * is ready to work offline, and a new version is waiting (applied only when the reader reloads,
 * so nothing is replaced in the middle of a task).
 */
import { useEffect, useRef, useState } from 'react';
import { registerSW } from 'virtual:pwa-register';

export function UpdateNotice() {
  const [state, setState] = useState<'none' | 'offline-ready' | 'update'>('none');
  const update = useRef<((reload?: boolean) => Promise<void>) | null>(null);
  useEffect(() => {
    if (!('serviceWorker' in navigator)) return;
    update.current = registerSW({
      onOfflineReady: () => setState('offline-ready'),
      onNeedRefresh: () => setState('update'),
    });
  }, []);
  if (state === 'none') return null;
  return (
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
  );
}
