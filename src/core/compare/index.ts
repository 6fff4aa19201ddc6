/**
 * @file Compare: one question through several pipelines side by side.
 * Pure: which fragments each used and where they agree, each column's cost from its trace, the
 * price estimate from an editable table, the plain-retrieval baseline, and when columns run.
 */
export * from './types';
export * from './usage';
export * from './agreement';
export * from './cost';
export * from './prices';
export * from './plain';
export * from './schedule';
