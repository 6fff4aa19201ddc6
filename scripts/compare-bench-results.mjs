/**
 * @file `node scripts/compare-bench-results.mjs BEFORE AFTER [BEFORE2 AFTER2 ...]`: are two
 * benchmark result files (bench/results/*.json) the same apart from where and how fast they ran?
 *
 * A change that only moves code (no change in behaviour) must leave the retrieval-quality and
 * RepoEval results as they were, to the byte. The files also carry the machine and date
 * (bench/results-file.ts `machine()`) and wall-clock or memory measurements, which differ on every
 * run; those fields are set aside, everything else is compared as written: same keys in the same
 * order, same values (numbers as the file spells them). Set aside, at any depth:
 *   - the machine: node, cpu, cores, platform, memoryGiB, date;
 *   - times: any key ending in `Ms` (parseMs, relationMs, totalMs, perTaskRebuildMs, ...);
 *   - memory measured at run time: retainedMB.
 * Prints each differing path (at most 20 per pair) and exits 1 when any pair differs, 0 when all
 * are the same; the fields set aside that differed are listed, so a reader sees what was skipped.
 */
import { readFileSync } from 'node:fs';

const MACHINE = new Set(['node', 'cpu', 'cores', 'platform', 'memoryGiB', 'date']);
const MEASURED = new Set(['retainedMB']);
const setAside = (key) => MACHINE.has(key) || MEASURED.has(key) || /Ms$/.test(key);

/** Walk both values in step; `diffs` gets compared paths that differ, `skipped` set-aside ones. */
function compare(a, b, path, diffs, skipped) {
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b)) return void diffs.push(`${path}: array vs not`);
    if (a.length !== b.length) diffs.push(`${path}: length ${a.length} vs ${b.length}`);
    for (let i = 0; i < Math.min(a.length, b.length); i++) {
      compare(a[i], b[i], `${path}[${i}]`, diffs, skipped);
    }
    return;
  }
  if (a && b && typeof a === 'object' && typeof b === 'object') {
    const ka = Object.keys(a);
    const kb = Object.keys(b);
    if (ka.join('\n') !== kb.join('\n')) {
      diffs.push(`${path}: keys [${ka.join(', ')}] vs [${kb.join(', ')}]`);
    }
    for (const k of ka) {
      if (!(k in b)) continue;
      const at = `${path}.${k}`;
      if (setAside(k)) {
        if (JSON.stringify(a[k]) !== JSON.stringify(b[k]))
          skipped.add(at.replace(/\[\d+\]/g, '[]'));
        continue;
      }
      compare(a[k], b[k], at, diffs, skipped);
    }
    return;
  }
  // Leaves: compared as JSON spells them, so 0.1 and 0.10000000000000002 differ.
  if (JSON.stringify(a) !== JSON.stringify(b)) {
    diffs.push(`${path}: ${JSON.stringify(a)} vs ${JSON.stringify(b)}`);
  }
}

const files = process.argv.slice(2);
if (files.length === 0 || files.length % 2 !== 0) {
  console.error('Usage: node scripts/compare-bench-results.mjs BEFORE AFTER [BEFORE2 AFTER2 ...]');
  process.exit(2);
}
let differ = false;
for (let p = 0; p < files.length; p += 2) {
  const [before, after] = [files[p], files[p + 1]];
  const diffs = [];
  const skipped = new Set();
  compare(
    JSON.parse(readFileSync(before, 'utf8')),
    JSON.parse(readFileSync(after, 'utf8')),
    '$',
    diffs,
    skipped,
  );
  const aside = skipped.size > 0 ? ` (set aside, differing: ${[...skipped].join(', ')})` : '';
  if (diffs.length === 0) {
    console.log(`same: ${before} = ${after}${aside}`);
    continue;
  }
  differ = true;
  console.log(`DIFFERENT: ${before} vs ${after}: ${diffs.length} paths${aside}`);
  for (const d of diffs.slice(0, 20)) console.log(`  ${d}`);
  if (diffs.length > 20) console.log(`  ... and ${diffs.length - 20} more`);
}
process.exit(differ ? 1 : 0);
