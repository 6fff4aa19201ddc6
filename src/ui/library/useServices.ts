/**
 * @file The page's services, opened once: the library (every write announced to other tabs), the
 * library service over the index worker, and the retrieval route (two retrieval workers).
 */
import { useEffect, useState } from 'react';
import { openLibrary, requestPersistentStorage, type Library } from '../../store';
import type { IndexApi } from '../../indexing';
import { WorkerClient } from '../../workers/client';
import { ExplainRoute } from '../../workers/explain-route';
import type { RetrievalApi } from '../../workers/retrieval.worker';
import type { Notice } from '../components/NoticeStack';
import { LibraryService } from '../library-service';
import { announcingWrites, tabSync } from '../sync/tab-sync';

export interface Services {
  library: Library;
  service: LibraryService;
  retrieval: ExplainRoute;
}

export type Boot =
  | { status: 'loading' }
  | { status: 'ready'; services: Services; workers: string }
  | { status: 'failed'; message: string };

export function useServices(onNotice: (kind: Notice['kind'], text: string) => void): Boot {
  const [boot, setBoot] = useState<Boot>({ status: 'loading' });
  useEffect(() => {
    let closed = false;
    const indexer = new WorkerClient<IndexApi>(
      new Worker(new URL('../../workers/index.worker.ts', import.meta.url), { type: 'module' }),
    );
    const retrievalWorker = () =>
      new WorkerClient<RetrievalApi>(
        new Worker(new URL('../../workers/retrieval.worker.ts', import.meta.url), {
          type: 'module',
        }),
      );
    // Windows' graph neighbourhoods in a second retrieval worker (explain-route.ts).
    const retrieval = new ExplainRoute(retrievalWorker(), retrievalWorker);
    let library: Library | null = null;
    const report = (e: { message: string }) => onNotice('error', e.message);
    openLibrary(undefined, { onBlocked: report, onVersionChange: report, onTerminated: report })
      .then(async (opened) => {
        library = opened;
        if (closed) return opened.close();
        // Every write tells the other tabs of this library what changed.
        const lib = announcingWrites(opened);
        void requestPersistentStorage();
        const ping = await retrieval.call('ping', null);
        setBoot({
          status: 'ready',
          services: {
            library: lib,
            service: new LibraryService(lib, indexer, undefined, () => tabSync().post('library')),
            retrieval,
          },
          workers: `Workers ready${ping.crossOriginIsolated ? ' (cross-origin isolated)' : ''}`,
        });
      })
      .catch((e: Error) => setBoot({ status: 'failed', message: e.message }));
    return () => {
      closed = true;
      indexer.terminate();
      retrieval.terminate();
      library?.close();
    };
  }, [onNotice]);
  return boot;
}
