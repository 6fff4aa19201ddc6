/**
 * A question in words about a real repository, on the app's path: semver 7 as npm ships it, read
 * through the folder ingest (as e2e/code-question.spec.ts drops it), parsed with the real
 * grammars, the summarised Eq. 8 and reference counts as the index worker builds them, the
 * windows embedded with the static vectors distilled from MiniLM (the app's offline vectors), and
 * `rankRun` with the code defaults (the `ppr` walk, alpha 0.5, the top 10 windows merged).
 *
 * "How does a range check whether a version satisfies it?" is answered by functions/satisfies.js
 * and by `Range.test` (classes/range.js line 196), which satisfies() calls. Range.test's body
 * shares one word with the question ("version"; "check" is "test" in the code), so it comes in
 * along the call and by its scope: the walk follows the code edges squared (core/code/references.ts,
 * walkWeights), so the call carries the caller's walk, and BM25 reads each window with the names
 * of the class and method it lies in (core/code/scopes.ts), so the body also says "Range".
 */
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { windowLineRanges } from '../core/code/references';
import { embedTexts } from '../core/embed/static';
import { queryTerms } from '../core/retrieval/query';
import { retrievalPreset } from '../core/retrieval/presets';
import { rankRun, runIndependentScores, type Run, type ScoringMode } from '../core/run';
import { droppedRepository, repositoryRun } from '../../test/code-repository';
import { loadDistilledFromDisk } from '../../test/distilled';

const SEMVER = path.resolve(
  'node_modules/@typescript-eslint/typescript-estree/node_modules/semver',
);
const QUESTION = 'How does a range check whether a version satisfies it?';

let run: Run;
let labels: string[];
let holdsRangeTest: (i: number) => boolean;

beforeAll(async () => {
  const repo = await droppedRepository(SEMVER, 'semver');
  const texts = repo.files.map((f) => f.text);
  const lines = windowLineRanges(texts, repo.windows);
  labels = lines.map((l) => `${repo.files[l.file].path}:${l.first + 1}-${l.last + 1}`);
  holdsRangeTest = (i) =>
    repo.files[lines[i].file].path === 'classes/range.js' &&
    lines[i].first + 1 <= 196 &&
    lines[i].last + 1 >= 196;
  run = repositoryRun('semver', repo, loadDistilledFromDisk());
}, 120_000);

function ask(scoring: ScoringMode) {
  const tokens = queryTerms(QUESTION);
  // The retrieval worker embeds the question's content words (workers/retrieval.worker.ts).
  const vector =
    scoring === 'bm25' ? undefined : embedTexts(loadDistilledFromDisk(), [tokens.join(' ')]).data;
  // The app's code defaults (the code view's settings for a dropped repository).
  const code = retrievalPreset('code');
  const ranked = rankRun(run, runIndependentScores(run, { tokens, vector }, scoring), {
    alpha: code.alpha,
    wRel: code.wRel,
    relations: code.relations,
    budget: Infinity,
    listed: 40,
    maxSelected: 10,
    mergeWindows: true,
  });
  const selected = Array.from(ranked.selection.indices);
  const top = Array.from(ranked.top);
  return {
    selected: selected.map((i) => labels[i]),
    rangeTestSelected: selected.some(holdsRangeTest),
    rangeTestRank: top.findIndex(holdsRangeTest) + 1 || Infinity,
  };
}

describe('semver: "How does a range check whether a version satisfies it?"', () => {
  it('the code defaults (BM25 and the walk) select satisfies.js and Range.test', () => {
    expect(retrievalPreset('code').scoring).toBe('bm25');
    const r = ask('bm25');
    expect(r.selected.some((l) => l.startsWith('functions/satisfies.js:'))).toBe(true);
    // Listed (ranks 33 and 35) but not selected before BM25 read the scope names; 52 and 62 when
    // the walk followed the edges unsquared.
    expect(r.rangeTestSelected).toBe(true);
  });

  it('hybrid with the distilled vectors: selects Range.test, which satisfies() calls', () => {
    const r = ask('hybrid');
    expect(r.selected.some((l) => l.startsWith('functions/satisfies.js:'))).toBe(true);
    // Not selected (ranks 35 and 36) when the walk followed the edges unsquared.
    expect(r.rangeTestSelected).toBe(true);
  });
});
