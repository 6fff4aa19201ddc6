/**
 * @file The SQL of docs/storage.md ("FragRel scoring as SQL"), read from the page itself: each
 * block follows a `<!-- sql:NAME -->` marker. Tests and the benchmark run these, so the page and
 * what is tested cannot drift apart. Node only (reads the file).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const STORAGE_MD = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../docs/storage.md');

/** The page's SQL blocks by name. */
export function sqlBlocks(file: string = STORAGE_MD): Record<string, string> {
  const text = readFileSync(file, 'utf8');
  const out: Record<string, string> = {};
  for (const m of text.matchAll(/<!-- sql:([\w-]+) -->\s*```sql\n([\s\S]*?)```/g)) {
    out[m[1]] = m[2];
  }
  return out;
}
