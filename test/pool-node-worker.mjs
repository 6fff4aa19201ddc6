// Loads the TypeScript pool member (pool-node-worker.ts) in a worker thread through tsx (Node 20
// does not pass `--import tsx` on to a worker's own entry).
import { register } from 'tsx/esm/api';

register();
await import('./pool-node-worker.ts');
