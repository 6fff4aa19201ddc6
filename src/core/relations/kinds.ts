/**
 * @file The relation kinds: the one table a new kind is added to. Everything else derives from
 * it: the type `RelationKind` (the worker's requests, the presets, the evaluation and tuning
 * grids), which kinds the book and code controls offer and how they describe them, and whether a
 * kind reads w_rel. The builder of each kind lives in core/run.ts (`relationBuilders`), typed so
 * that a kind in this table without a builder does not compile.
 *
 * To add a kind: an entry here, its builder in src/core/relations/ (wired in run.ts's
 * `relationBuilders`), and, if it is stored, its record in src/store (docs/architecture.md).
 */

export interface RelationKindInfo {
  /** What the book controls say ("Neighbours are …"). */
  bookLabel: string;
  /** What the code controls say. */
  codeLabel: string;
  /** Help for the code controls, citing the paper's equation where there is one. */
  codeHelp: string;
  /** Whether the kind's weights depend on w_rel (Eq. 7's decay), so tuning varies it. */
  usesWRel: boolean;
  /** Stored with the index (a CSR per document) or computed at question time. */
  stored: boolean;
  /** Offered in the book controls, and in the code controls (in this order below). */
  forBooks: boolean;
  forCode: boolean;
}

export const RELATION_KINDS = {
  context: {
    bookLabel: 'nearby in the text',
    codeLabel: 'context',
    codeHelp: 'Eq. 7: neighbouring windows lend their relevance (w_rel to the distance).',
    usesWRel: true,
    stored: false,
    forBooks: true,
    forCode: true,
  },
  semantic: {
    bookLabel: 'similar in meaning',
    codeLabel: 'semantic',
    codeHelp: 'Eq. 6: the most similar windows by embedding lend their relevance.',
    usesWRel: false,
    stored: true,
    forBooks: true,
    forCode: true,
  },
  code: {
    bookLabel: 'joined by the code structure',
    codeLabel: 'code structure',
    codeHelp:
      'Eq. 8: windows joined by calls, definitions and the directory tree lend their relevance.',
    usesWRel: false,
    stored: true,
    forBooks: false,
    forCode: true,
  },
  ppr: {
    bookLabel: 'linked in a few steps (multi-hop PageRank)',
    codeLabel: 'multi-hop over code structure',
    codeHelp:
      'Personalised PageRank: relevance starts at the 5 best windows and flows along the code-structure edges (Eq. 8), so a definition two calls away still gains. Measured best on RepoEval.',
    usesWRel: true,
    stored: false,
    forBooks: true,
    forCode: true,
  },
  section: {
    bookLabel: 'under the same heading or chapter',
    codeLabel: 'same section',
    codeHelp: 'Fragments under the same heading or chapter lend their relevance equally.',
    usesWRel: false,
    stored: false,
    forBooks: true,
    forCode: false,
  },
} as const satisfies Record<string, RelationKindInfo>;

export type RelationKind = keyof typeof RELATION_KINDS;

/** Every kind, in the table's order. */
export const relationKinds = Object.keys(RELATION_KINDS) as RelationKind[];

/** The kinds the book controls offer, in the order they show them. */
export const bookRelationKinds = relationKinds.filter((k) => RELATION_KINDS[k].forBooks);

/** The kinds the code controls offer, in the order they show them. */
export const codeRelationKinds: RelationKind[] = ['code', 'ppr', 'context', 'semantic'].filter(
  (k): k is RelationKind => RELATION_KINDS[k as RelationKind]?.forCode === true,
);

/** True when any of the kinds reads w_rel (so w_rel matters to the ranking). */
export function usesWRel(kinds: readonly RelationKind[]): boolean {
  return kinds.some((k) => RELATION_KINDS[k].usesWRel);
}
