/**
 * @file Benchmark files into one shape (docs/evaluation.md, "Formats"): the entry point is
 * `parseBenchmarkFile(name, text | bytes, companions?)` -> `{ok, value: {format, items, ...}}`
 * or `{ok: false, error}`; each item carries its document, question, answers and gold spans.
 */
export { benchmarkText, parseBenchmarkFile } from './detect';
export { LOCATE_GOLD } from './formats';
export * from './types';
