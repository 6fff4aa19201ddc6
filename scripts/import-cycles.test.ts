import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs script without declarations
import { importCycles, importGraph } from './import-cycles.mjs';

function tree(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'import-cycles-'));
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(root, name, '..'), { recursive: true });
    writeFileSync(join(root, name), text);
  }
  return root;
}

const names = (root: string, cycles: string[][]) =>
  cycles.map((c) => c.map((f) => relative(root, f)));

describe('import circles', () => {
  it('finds a circle through a type-only import, a re-export and a bare import', () => {
    const root = tree({
      'a.ts': "import type { B } from './b';\nexport type A = B;",
      'b.ts': "export * from './c';\nexport type B = number;",
      'c.ts': "import './a';",
      'd.ts': "import { x } from './e';\nexport const y = x;",
      'e.ts': 'export const x = 1;',
      'e.test.ts': "import { y } from './d';",
    });
    expect(names(root, importCycles(importGraph(root)))).toEqual([['a.ts', 'b.ts', 'c.ts']]);
  });

  it('reads multi-line imports and folders with an index file', () => {
    const root = tree({
      'x/index.ts': "import {\n  p,\n  q,\n} from '../y';\nexport const r = p + q;",
      'y.ts': "import { r } from './x';\nexport const p = 1, q = 2; void r;",
    });
    expect(names(root, importCycles(importGraph(root)))).toEqual([['x/index.ts', 'y.ts']]);
  });

  it('finds none under src/', () => {
    expect(importCycles(importGraph(resolve('src')))).toEqual([]);
  });
});
