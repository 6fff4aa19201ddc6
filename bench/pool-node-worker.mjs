// Loads the TypeScript pool member (pool-node-worker.ts) in a worker thread through tsx.
import { register } from 'tsx/esm/api';

register();
await import('./pool-node-worker.ts');
