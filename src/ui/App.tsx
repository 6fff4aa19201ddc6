import { useEffect, useState } from 'react';
import { WorkerClient } from '../workers/client';
import type { RetrievalApi } from '../workers/retrieval.worker';

type WorkerState =
  | { status: 'starting' }
  | { status: 'ready'; isolated: boolean }
  | { status: 'failed'; message: string };

export function App() {
  const [worker, setWorker] = useState<WorkerState>({ status: 'starting' });

  useEffect(() => {
    const client = new WorkerClient<RetrievalApi>(
      new Worker(new URL('../workers/retrieval.worker.ts', import.meta.url), { type: 'module' }),
    );
    client
      .call('ping', null)
      .then((r) => setWorker({ status: 'ready', isolated: r.crossOriginIsolated }))
      .catch((e: Error) => setWorker({ status: 'failed', message: e.message }));
    return () => client.terminate();
  }, []);

  return (
    <main className="app">
      <h1>FragRel Lens</h1>
      <p>Drop a book or a zipped repository, then ask it questions.</p>
      <p data-testid="worker-status" role="status">
        {worker.status === 'starting' && 'Starting workers…'}
        {worker.status === 'ready' &&
          `Workers ready${worker.isolated ? ' (cross-origin isolated)' : ''}`}
        {worker.status === 'failed' && `Workers failed: ${worker.message}`}
      </p>
    </main>
  );
}
