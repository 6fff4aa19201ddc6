/**
 * @file Evaluation core shared by `npm run bench:quality` and the in-browser evaluation page:
 * retrieval metrics, the tune/held-out split and the paired bootstrap. Data-set parsers live in
 * ./datasets.
 */
export * from './answers';
export * from './bootstrap';
export * from './grid';
export * from './retrieval';
export * from './split';
