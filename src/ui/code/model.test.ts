import { describe, expect, it } from 'vitest';
import type { RetrievalResult } from '../../workers/retrieval-types';
import {
  cachedWindowsByFile,
  completionQuery,
  newLayoutCache,
  fileHeat,
  fileKey,
  fileTree,
  firstFileToOpen,
  heatLevel,
  linesOf,
  repositoryFilesOf,
  retrievedWindows,
  textBeforeLine,
  windowsByFile,
  type FileHeat,
} from './model';
import { directoryHeat, directoryPlan } from './FileTree';

/** A run of one repository: a.js (two windows) and lib/b.js (one), plus a book after it. */
function result(): RetrievalResult {
  const source = 'A\n'.repeat(30) + 'B\n'.repeat(5);
  return {
    question: 'q',
    queryTerms: [],
    documents: [
      { docId: 'r', name: 'repo.zip', offset: 0, count: 3 },
      { docId: 'book', name: 'book.txt', offset: 3, count: 1 },
    ],
    starts: Uint32Array.of(0, 20, 60, 0),
    ends: Uint32Array.of(40, 60, 70, 10),
    costs: Uint32Array.of(20, 20, 5, 10),
    labels: ['a.js:1-20', 'a.js:11-30', 'lib/b.js:1-5', 'CHAPTER I'],
    independent: Float64Array.of(0.2, 0.9, 0.4, 0.1),
    environmentByKind: {},
    environment: Float64Array.of(0, 0, 0, 0),
    final: Float64Array.of(0.2, 0.9, 0.4, 0.1),
    selected: Uint32Array.of(0, 2),
    selectedRanked: Uint32Array.of(2, 0),
    top: Uint32Array.of(2, 0, 3),
    explanations: {},
    cutoff: 0.2,
    used: 2,
    budget: Infinity,
    maxSelected: 10,
    excluded: Uint32Array.of(1),
    settings: { alpha: 0.5, wRel: 0.3, relations: ['code'], scoring: 'bm25', budget: Infinity },
    timings: { independentMs: 0, rerankMs: 0 },
    ...{ source },
  } as RetrievalResult;
}

describe('the code panel model', () => {
  it('parses the windows once per run layout, again when the layout or its labels change', () => {
    const cache = newLayoutCache();
    const r = result();
    const first = cachedWindowsByFile(r, cache);
    expect(first).toEqual(windowsByFile(r));
    // A re-rank: new scores, the same labels handed back (or an equal copy).
    expect(cachedWindowsByFile({ ...r, final: r.final.map((x) => x * 2) }, cache)).toBe(first);
    expect(cachedWindowsByFile({ ...r, labels: [...r.labels] }, cache)).toBe(first);
    // The same document re-indexed in place with other windows: parsed again.
    const moved = { ...r, labels: ['a.js:1-20', 'a.js:11-30', 'lib/c.js:1-5', 'CHAPTER I'] };
    expect(cachedWindowsByFile(moved, cache)).toEqual(windowsByFile(moved));
    expect(cachedWindowsByFile(moved, cache).has(fileKey('r', 'lib/c.js'))).toBe(true);
  });

  it('groups windows by file and gives each file its best final score, excluded windows aside', () => {
    const r = result();
    const byFile = windowsByFile(r);
    expect([...byFile.keys()]).toEqual([fileKey('r', 'a.js'), fileKey('r', 'lib/b.js')]);
    expect(byFile.get(fileKey('r', 'a.js'))!.map((w) => [w.index, w.first, w.last])).toEqual([
      [0, 1, 20],
      [1, 11, 30],
    ]);
    const heat = fileHeat(r, byFile);
    // Window 1 scores 0.9 but holds the cursor: the file's heat is its other window's.
    expect(heat.get(fileKey('r', 'a.js'))).toEqual({ best: 0.2, bestWindow: 0, selected: 1 });
    expect(heat.get(fileKey('r', 'lib/b.js'))).toEqual({ best: 0.4, bestWindow: 2, selected: 1 });
    expect(heatLevel(0.2, 0.4)).toBe(0.5);
    expect(heatLevel(0, 0)).toBe(0);
  });

  it('builds the directory tree, directories first', () => {
    const tree = fileTree(['src/z.js', 'a.js', 'src/util/x.js', 'src/b.js']);
    expect(tree.files.map((f) => f.path)).toEqual(['a.js']);
    expect(tree.dirs.map((d) => d.path)).toEqual(['src']);
    expect(tree.dirs[0].dirs.map((d) => d.path)).toEqual(['src/util']);
    expect(tree.dirs[0].files.map((f) => f.name)).toEqual(['b.js', 'z.js']);
  });

  it('opens the README first, else an entry point, never the licence because it sorts first', () => {
    expect(firstFileToOpen(['LICENSE', 'docs/README.md', 'README.md', 'src/index.js'])).toBe(
      'README.md',
    );
    expect(firstFileToOpen(['LICENSE', 'src/lib/util.js', 'src/index.js', 'main.py'])).toBe(
      'main.py',
    );
    expect(firstFileToOpen(['LICENSE', '.eslintrc', 'CHANGELOG.md', 'src/range.js'])).toBe(
      'src/range.js',
    );
    expect(firstFileToOpen(['LICENSE'])).toBe('LICENSE');
    expect(firstFileToOpen([])).toBeNull();
  });

  it('sorts names naturally: numbers by value, letters ignoring case', () => {
    const tree = fileTree([
      'f1000.txt',
      'f100.txt',
      'f2.txt',
      'F10.txt',
      'f0.txt',
      'd10/a',
      'd9/a',
    ]);
    expect(tree.files.map((f) => f.name)).toEqual([
      'f0.txt',
      'f2.txt',
      'F10.txt',
      'f100.txt',
      'f1000.txt',
    ]);
    expect(tree.dirs.map((d) => d.name)).toEqual(['d9', 'd10']);
  });

  it('cuts a file at the cursor and takes the last 20 lines before it as the query', () => {
    const lines = linesOf(Array.from({ length: 30 }, (_, i) => `line ${i + 1}`).join('\n') + '\n');
    expect(lines).toHaveLength(30);
    expect(textBeforeLine(lines, 1)).toBe('');
    expect(textBeforeLine(lines, 3)).toBe('line 1\nline 2\n');
    const q = completionQuery(lines, 25).split('\n');
    expect(q[0]).toBe('line 5');
    expect(q[q.length - 1]).toBe('line 24');
    expect(q).toHaveLength(20);
    expect(completionQuery(lines, 1)).toBe('');
  });

  it('hands the selected windows to the prompt in document order with their ranks', () => {
    const r = result();
    const source = (r as unknown as { source: string }).source;
    const windows = retrievedWindows(r, new Map([['r', source]]))!;
    expect(windows.map((w) => [w.index, w.rank, w.location])).toEqual([
      [0, 1, 'a.js:1-20'],
      [2, 0, 'lib/b.js:1-5'],
    ]);
    expect(windows[1].text).toBe(source.slice(60, 70));
    expect(retrievedWindows(r, new Map())).toBeNull();
  });

  it('quotes merged spans once each, in document order, when the windows were merged', () => {
    const r = result();
    const source = (r as unknown as { source: string }).source;
    r.selected = Uint32Array.of(0, 1, 2);
    r.selectedRanked = Uint32Array.of(1, 2, 0);
    r.spans = [
      {
        docId: 'r',
        path: 'a.js',
        first: 1,
        last: 30,
        start: 0,
        end: 60,
        windows: [0, 1],
        best: 1,
        rank: 0,
      },
      {
        docId: 'r',
        path: 'lib/b.js',
        first: 1,
        last: 5,
        start: 60,
        end: 70,
        windows: [2],
        best: 2,
        rank: 1,
      },
    ];
    const quoted = retrievedWindows(r, new Map([['r', source]]))!;
    expect(quoted.map((w) => [w.index, w.rank, w.location])).toEqual([
      [1, 0, 'a.js:1-30'],
      [2, 1, 'lib/b.js:1-5'],
    ]);
    // Lines 11-20 sit in both windows and are quoted once.
    expect(quoted[0].text).toBe(source.slice(0, 60));
    expect(quoted[0].text.split('\n').length - 1).toBe(30);
  });

  it('reads a repository document’s files from its sections', () => {
    expect(
      repositoryFilesOf({
        id: 'r',
        sections: [
          { title: 'a.js', start: 0, end: 10, kind: 'file' },
          { title: 'Intro', start: 0, end: 5, kind: 'chapter' },
        ],
      }),
    ).toEqual([{ docId: 'r', path: 'a.js', start: 0, end: 10 }]);
  });
});

describe('the file tree’s directory heat', () => {
  it('gives each directory its best file’s heat, nested directories included', () => {
    const paths = ['a.js', 'src/b.js', 'src/util/c.js', 'src/util/d.js', 'lib/e.js', 'lib/x/f.js'];
    const tree = fileTree(paths);
    const heat = new Map<string, FileHeat>([
      [fileKey('r', 'src/b.js'), { best: 0.2, bestWindow: 1, selected: 0 }],
      [fileKey('r', 'src/util/d.js'), { best: 0.7, bestWindow: 3, selected: 1 }],
      [fileKey('r', 'lib/e.js'), { best: 0.1, bestWindow: 4, selected: 0 }],
      [fileKey('other', 'lib/x/f.js'), { best: 0.9, bestWindow: 5, selected: 0 }],
    ]);
    const byDir = directoryHeat(directoryPlan('r', tree), heat);
    expect(Object.fromEntries(byDir)).toEqual({
      '': 0.7,
      src: 0.7,
      'src/util': 0.7,
      lib: 0.1,
      // Another document's file of the same path lends this repository nothing.
      'lib/x': 0,
    });
  });
});
