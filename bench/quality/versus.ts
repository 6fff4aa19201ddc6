/**
 * @file Every configuration of bench/quality.ts against one reference configuration, whatever its
 * scorer: plain BM25 over the whole question by default (`QUALITY_VS=bm25`). The tables of
 * quality.ts compare a variant with plain retrieval under the SAME scorer; choosing the book
 * default among scorers (BM25, static GloVe or distilled vectors, hybrids) needs the change
 * against one fixed baseline, paired per question (each arm scored the same questions, in the
 * same order), with the bootstrap interval of src/core/eval/bootstrap.ts.
 *
 * The choice is made on the tune half only (mean gold recall at 1K and 2K words over the sets
 * and fragment sizes run, books pooled left out as in quality.ts's objective); the held-out half
 * is reported for the configurations ranked best on the tune half, per set and pooled.
 */
import { pairedBootstrap, type PairedDelta, type SplitPart } from '../../src/core/eval';
import type { BenchSet } from './items';

/** values[set][size][scorer][variant][metric] = per-question values in question order. */
export type Values = Record<
  string,
  Record<string, Record<string, Record<string, Record<string, number[]>>>>
>;

export const VERSUS_METRICS = ['gold@1Kw', 'gold@2Kw'] as const;

export interface VersusCell {
  n: number;
  mean: number;
  reference: number;
  delta: PairedDelta;
}

export interface VersusRow {
  scorer: string;
  variant: string;
  size: string;
  /** Tune half: mean gold recall at 1K and 2K words over every set (books pooled left out). */
  tune: number;
  /** Tune half, the same mean for the reference at this size. */
  tuneReference: number;
  /** Held-out half: per set (and `books`) and metric, against the reference. */
  heldout: Record<string, Partial<Record<(typeof VERSUS_METRICS)[number], VersusCell>>>;
}

export interface VersusResults {
  reference: { scorer: string; variant: 'plain' };
  rows: VersusRow[];
}

const mean = (xs: readonly number[]) => xs.reduce((s, x) => s + x, 0) / Math.max(1, xs.length);

/** The values of one split where both arms measured the question (gold located). */
function paired(
  set: BenchSet,
  split: SplitPart,
  xs: readonly number[],
  ref: readonly number[],
): { x: number[]; r: number[] } {
  const x: number[] = [];
  const r: number[] = [];
  set.questions.forEach((q, i) => {
    if (q.split === split && !Number.isNaN(xs[i]) && !Number.isNaN(ref[i])) {
      x.push(xs[i]);
      r.push(ref[i]);
    }
  });
  return { x, r };
}

/**
 * Every (scorer, variant, size) against the reference scorer's plain retrieval at the same size
 * (MuSiQue's fixed paragraphs stand in for every size), ranked by the tune-half mean.
 */
export function versusReference(
  sets: readonly BenchSet[],
  values: Values,
  referenceScorer: string,
  options: { resamples: number; seed: number },
): VersusResults {
  const rows: VersusRow[] = [];
  const sizes = [
    ...new Set(sets.flatMap((s) => Object.keys(values[s.name] ?? {}))).values(),
  ].filter((s) => s !== 'paragraph');
  const sizeOf = (set: string, size: string) => (values[set][size] ? size : 'paragraph');
  const first = sets[0] && values[sets[0].name][sizeOf(sets[0].name, sizes[0])];
  if (!first || !first[referenceScorer])
    return { reference: { scorer: referenceScorer, variant: 'plain' }, rows };
  const scorers = Object.keys(first);
  const variants = Object.keys(first[referenceScorer]);
  for (const size of sizes) {
    for (const scorer of scorers) {
      for (const variant of variants) {
        const tune: number[] = [];
        const tuneRef: number[] = [];
        const heldout: VersusRow['heldout'] = {};
        for (const set of sets) {
          const bySize = values[set.name][sizeOf(set.name, size)];
          for (const metric of VERSUS_METRICS) {
            const xs = bySize[scorer]?.[variant]?.[metric];
            const ref = bySize[referenceScorer]?.plain?.[metric];
            if (!xs || !ref) continue;
            if (set.name !== 'books') {
              const t = paired(set, 'tune', xs, ref);
              if (t.x.length > 0) {
                tune.push(mean(t.x));
                tuneRef.push(mean(t.r));
              }
            }
            const h = paired(set, 'heldout', xs, ref);
            if (h.x.length === 0) continue;
            (heldout[set.name] ??= {})[metric] = {
              n: h.x.length,
              mean: mean(h.x),
              reference: mean(h.r),
              delta: pairedBootstrap(h.x, h.r, options),
            };
          }
        }
        rows.push({
          scorer,
          variant,
          size,
          tune: mean(tune),
          tuneReference: mean(tuneRef),
          heldout,
        });
      }
    }
  }
  rows.sort((a, b) => b.tune - a.tune);
  return { reference: { scorer: referenceScorer, variant: 'plain' }, rows };
}

const pct = (x: number) => (100 * x).toFixed(1);
const signed = (x: number) => `${x >= 0 ? '+' : '−'}${Math.abs(100 * x).toFixed(1)}`;
const deltaText = (c: VersusCell | undefined) => {
  if (!c) return '—';
  const d = c.delta;
  const sig = d.ci95[0] > 0 || d.ci95[1] < 0 ? '**' : '';
  return `${pct(c.mean)} (${sig}${signed(d.mean)} [${signed(d.ci95[0])}, ${signed(d.ci95[1])}]${sig})`;
};

/** The `top` configurations of the tune half, with their held-out change per set. */
export function versusMarkdown(r: VersusResults, embedder: string, top = 12): string {
  const out: string[] = [];
  const ref = `${r.reference.scorer} plain`;
  out.push(
    `Tune half, ranked (mean gold recall at 1K and 2K words over every set; embedder ${embedder}; reference ${ref}):`,
    '',
    '| rank | scorer | variant | fragments | tune | reference (tune) |',
    '|---:|---|---|---:|---:|---:|',
  );
  r.rows.slice(0, top).forEach((row, k) => {
    out.push(
      `| ${k + 1} | ${row.scorer} | ${row.variant} | ${row.size} | ${pct(row.tune)} | ${pct(row.tuneReference)} |`,
    );
  });
  const sets = [...new Set(r.rows.flatMap((row) => Object.keys(row.heldout)))];
  for (const metric of VERSUS_METRICS) {
    out.push(
      '',
      `Held-out half, ${metric}: recall (change against ${ref} at the same fragment size, paired bootstrap 95%):`,
      '',
      `| scorer | variant | fragments | ${sets.join(' | ')} |`,
      `|---|---|---:|${sets.map(() => '---:').join('|')}|`,
    );
    for (const row of r.rows.slice(0, top)) {
      out.push(
        `| ${row.scorer} | ${row.variant} | ${row.size} | ${sets.map((s) => deltaText(row.heldout[s]?.[metric])).join(' | ')} |`,
      );
    }
  }
  return out.join('\n');
}
