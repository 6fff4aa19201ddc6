/**
 * Scope names (scopes.ts) as the index stores them and BM25 reads them (core/run.ts): a method's
 * window is found by its class's name, which its body does not say; a repository stored before
 * the names were kept (or with names that do not fit its windows) is read as before.
 */
import { describe, expect, it } from 'vitest';
import { bm25Scores, buildBm25Index } from '../bm25';
import { buildRun, runBm25, runIndependentScores } from '../run';
import { tokenize } from '../tokenize';
import { laidOutRepository, repositoryDocument } from '../../../test/code-repository';
import { windowScopeNames } from './scopes';

const filler = (n: number) => Array.from({ length: n }, (_, k) => `  // note ${k}`).join('\n');
const RANGE = `class Range {
  constructor (raw) {
    this.raw = raw
  }

${filler(12)}

  test (version) {
    if (!version) {
      return false
    }
    return this.raw === version
  }
}

${filler(12)}

module.exports = Range
`;
const README = `# Ranges\n\n${Array.from({ length: 30 }, (_, k) => `A range matches versions ${k}.`).join('\n')}\n`;

async function repo() {
  return laidOutRepository([
    { path: 'pkg/classes/range.js', text: RANGE },
    { path: 'pkg/README.md', text: README },
  ]);
}

describe('scope names', () => {
  it('name the class and method a window lies in; none for a file without syntax', async () => {
    const r = await repo();
    const names = windowScopeNames(r.graph, r.cover);
    expect(names).toHaveLength(r.windows.length);
    const texts = r.fragments.map((f) => r.layout.text.slice(f.start, f.end));
    const body = texts.findIndex((t) => t.includes('test (version)') && !t.includes('class Range'));
    expect(body).toBeGreaterThanOrEqual(0);
    expect(names[body].split(' ')).toEqual(expect.arrayContaining(['Range', 'test']));
    // The body's text does not say "range"; its scope does.
    expect(tokenize(texts[body])).not.toContain('range');
    const readme = r.windows.map((w, i) => (r.files[w.file].path.endsWith('.md') ? i : -1));
    expect(readme.filter((i) => i >= 0).length).toBeGreaterThan(0);
    for (const i of readme) if (i >= 0) expect(names[i]).toBe('');
  });

  it('BM25 reads each window with its scope names, as an index over text and names', async () => {
    const r = await repo();
    const doc = repositoryDocument('pkg', r);
    const run = buildRun([doc]);
    const texts = r.fragments.map((f) => r.layout.text.slice(f.start, f.end));
    const expected = bm25Scores(
      buildBm25Index(texts.map((t, i) => [...tokenize(t), ...tokenize(doc.codeScopes![i])])),
      ['range', 'version'],
    );
    const got = bm25Scores(runBm25(run), ['range', 'version']);
    expect(Array.from(got)).toEqual(Array.from(expected));
    const body = texts.findIndex((t) => t.includes('test (version)') && !t.includes('class Range'));
    expect(bm25Scores(runBm25(run), ['range'])[body]).toBeGreaterThan(0);
  });

  it('a repository stored without scope names, or with names that do not fit, is read by its text', async () => {
    const r = await repo();
    const { codeScopes, ...old } = repositoryDocument('pkg', r);
    const texts = r.fragments.map((f) => r.layout.text.slice(f.start, f.end));
    const plain = bm25Scores(buildBm25Index(texts.map((t) => tokenize(t))), ['range', 'version']);
    const withScopes = runIndependentScores(
      buildRun([{ ...old, codeScopes }]),
      { tokens: ['range'] },
      'bm25',
    );
    expect(buildRun([{ ...old, codeScopes }]).documents[0].scopeNames).toBe(true);
    for (const doc of [old, { ...old, codeScopes: codeScopes!.slice(1) }]) {
      const run = buildRun([doc]);
      // The panel says so (ui/presets/CodePresetNote.tsx).
      expect(run.documents[0].scopeNames).toBe(false);
      expect(Array.from(bm25Scores(runBm25(run), ['range', 'version']))).toEqual(Array.from(plain));
    }
    // The names change the ranking (so the comparison above can fail).
    const without = runIndependentScores(buildRun([old]), { tokens: ['range'] }, 'bm25');
    expect(Array.from(withScopes)).not.toEqual(Array.from(without));
  });
});
