/**
 * @file `node scripts/import-cycles.mjs`: finds import circles among the source files under src/
 * (tests excluded), counting every relative import, type-only ones included, since a circle of
 * types is still two modules that cannot be understood apart. Part of `npm run lint`.
 *
 * Why a script and not eslint-plugin-import's `no-cycle`: that rule resolves every import of
 * every file for every file it lints (minutes on this tree, per its own documentation) and
 * would add a dependency; the graph here is plain relative specifiers, resolved in one pass.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const SOURCE = /\.(ts|tsx)$/;
const TEST = /\.test\.(ts|tsx)$/;

function sourceFiles(dir) {
  const out = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...sourceFiles(path));
    else if (SOURCE.test(name) && !TEST.test(name) && !name.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

// `import … from '…'`, `export … from '…'`, a bare `import '…'` and `import('…')`.
const SPECIFIER =
  /(?:^|[\s;])(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|(?:^|[\s;])import\s*\(?\s*['"]([^'"]+)['"]/g;

function resolveSpecifier(from, spec) {
  if (!spec.startsWith('.')) return null;
  const base = resolve(dirname(from), spec.replace(/\?.*$/, ''));
  for (const candidate of [
    base,
    `${base}.ts`,
    `${base}.tsx`,
    join(base, 'index.ts'),
    join(base, 'index.tsx'),
  ]) {
    if (SOURCE.test(candidate) && existsSync(candidate) && statSync(candidate).isFile())
      return candidate;
  }
  return null;
}

/** The import graph: file -> the files it imports (relative imports only). */
export function importGraph(root) {
  const graph = new Map();
  for (const file of sourceFiles(root)) {
    const text = readFileSync(file, 'utf8');
    const targets = new Set();
    for (const m of text.matchAll(SPECIFIER)) {
      const target = resolveSpecifier(file, m[1] ?? m[2]);
      if (target && !TEST.test(target)) targets.add(target);
    }
    graph.set(file, [...targets]);
  }
  return graph;
}

/** Strongly connected components with more than one file (or a file importing itself): Tarjan. */
export function importCycles(graph) {
  let counter = 0;
  const index = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const cycles = [];
  const visit = (v) => {
    index.set(v, counter);
    low.set(v, counter);
    counter++;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v), index.get(w)));
    }
    if (low.get(v) === index.get(v)) {
      const component = [];
      let w;
      do {
        w = stack.pop();
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || (graph.get(v) ?? []).includes(v)) cycles.push(component.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return cycles;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
  const cycles = importCycles(importGraph(join(root, 'src')));
  for (const c of cycles)
    console.error(`import circle: ${c.map((f) => relative(root, f)).join(' <-> ')}`);
  if (cycles.length) {
    console.error(`${cycles.length} import circle(s) under src/.`);
    process.exit(1);
  }
  console.log('import-cycles: no import circle under src/.');
}
