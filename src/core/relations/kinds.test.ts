import { describe, expect, it } from 'vitest';
import { buildRun, runRelations, type RunDocumentIndex } from '../run';
import type { CsrMatrix } from '../types';
import {
  bookRelationKinds,
  codeRelationKinds,
  RELATION_KINDS,
  relationKinds,
  usesWRel,
} from './kinds';

/** 0 -> 1 and 1 -> 0 with weight 0.5: a stored relation over two fragments. */
const pair = (): CsrMatrix => ({
  size: 2,
  rowPtr: Uint32Array.of(0, 1, 2),
  col: Uint32Array.of(1, 0),
  weight: Float32Array.of(0.5, 0.5),
});

const doc: RunDocumentIndex = {
  docId: 'd',
  name: 'd',
  source: 'one two',
  starts: Uint32Array.of(0, 4),
  ends: Uint32Array.of(3, 7),
  words: Uint32Array.of(1, 1),
  labels: ['Chapter I', 'Chapter I'],
  semantic: pair(),
  code: pair(),
};

describe('the relation-kind table', () => {
  it.each(relationKinds)('%s: has every part, and a builder that makes a relation', (kind) => {
    const info = RELATION_KINDS[kind];
    for (const text of [info.bookLabel, info.codeLabel, info.codeHelp])
      expect(text.trim().length).toBeGreaterThan(3);
    expect(info.forBooks || info.forCode).toBe(true);
    const relations = runRelations(buildRun([doc]), [kind], 0.3);
    expect(relations).toHaveLength(1);
    expect(relations[0].kind).toBe(kind);
  });

  it('offers each kind where the table says, in the controls', () => {
    expect(bookRelationKinds).toEqual(relationKinds.filter((k) => RELATION_KINDS[k].forBooks));
    expect([...codeRelationKinds].sort()).toEqual(
      relationKinds.filter((k) => RELATION_KINDS[k].forCode).sort(),
    );
  });

  it('knows which kinds read w_rel: the context kernel and the multi-hop walk', () => {
    expect(relationKinds.filter((k) => usesWRel([k]))).toEqual(['context', 'ppr']);
    expect(usesWRel(['semantic', 'code'])).toBe(false);
    expect(usesWRel([])).toBe(false);
  });

  it('a relation whose weights depend on w_rel changes with it; one that does not, does not', () => {
    const run = buildRun([doc]);
    for (const kind of relationKinds) {
      const [a] = runRelations(run, [kind], 0.3);
      const [b] = runRelations(run, [kind], 0.6);
      expect(a === b).toBe(!RELATION_KINDS[kind].usesWRel);
    }
  });
});
