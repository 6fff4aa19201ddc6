/**
 * @file Chat-memory retrieval on MTBench+ (../shared/datasets/mtbenchplus/mtbenchplus.json, the
 * 27-dialog subset; issue 6). Each dialog is a list of human turns (the bot replies are empty,
 * so a round is the human turn alone); its last turn is the test message, and that turn's
 * `turn-info` names the earlier topic(s) it refers to: "roleplay-95-Q" refers to the turns
 * whose turn-info starts "roleplay-95-", "roleplay-98-extraction-132-Q" (conjunction) to those
 * of two topics. Those turns are the gold.
 *
 * For every dialog we plan the chat memory for the last message with `planChatMemory` (query =
 * the last past round + the new message, top 8, as the method says) and measure, over the set
 * of past rounds it returns:
 * - any: at least one gold turn is in the set;
 * - each topic: at least one turn of every referred topic (differs from "any" only for
 *   conjunction, whose message names two topics);
 * - all: every gold turn is in the set.
 * Two sets are measured:
 * - "retrieved 8" (recentTurns 0): the 8 rounds retrieved among all past rounds, the issue's
 *   measure and the paper's setting;
 * - "prompt" (the app's default recentTurns 2): the 2 most recent rounds verbatim plus the 8
 *   retrieved among the older ones: what the model would actually see.
 * Methods: plain retrieval (alpha 0) and FragRel (context-structure relation over turn order,
 * w_rel 0.8, alpha 0.5), each with the static GloVe embedder (dense), BM25 and their hybrid
 * (lambda 0.5). "chance" is the exact expectation for the same number of rounds drawn
 * uniformly at random (every subset enumerated). No parameter is tuned here.
 *
 * With `QUALITY_EMBEDDER=minilm` (as bench/quality.ts) the real all-MiniLM-L6-v2 from
 * `npm run models` adds dense and hybrid rows beside GloVe's, and a table of paired bootstrap
 * 95% intervals (per dialog, "all" at the prompt set; "any" is at 100% for every scorer) for each scorer's FragRel against its own
 * plain retrieval, for MiniLM against GloVe, and for every embedder's plain dense and hybrid
 * against plain BM25. `QUALITY_EMBEDDER=distilled,minilm` adds both the distilled static vectors
 * and MiniLM (results in bench/results/mtbench-distilled-minilm.json).
 *
 * Run: `npx tsx bench/mtbench.ts` (writes bench/results/mtbench.json, prints markdown tables;
 * with MiniLM, bench/results/mtbench-minilm.json).
 */
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { planChatMemory, type ChatEmbedder, type ChatMemoryOptions } from '../src/core/chat';
import { embedTexts } from '../src/core/embed/static';
import { pairedBootstrap } from '../src/core/eval';
import type { VectorSet } from '../src/core/types';
import { loadGloveFromDisk, sharedDatasetPath } from '../test/glove';
import { writeResults } from './results-file';

const TYPES = ['retrospection', 'continuation', 'conjunction'] as const;
type QuestionType = (typeof TYPES)[number];
const TOP_TURNS = 8;

interface RawDialog {
  id: string;
  type: QuestionType;
  conversations: { from: string; value: string; 'turn-info'?: string }[];
}

export interface Dialog {
  id: string;
  type: QuestionType;
  /** Past human turns (the rounds) and their turn-info. */
  turns: string[];
  turnInfo: string[];
  /** The test message. */
  message: string;
  /** Referred topics ("roleplay-95") and, per topic, its past turn indices. */
  topics: string[];
  gold: number[][];
}

/** "roleplay-98-extraction-132-Q" -> ["roleplay-98", "extraction-132"]. */
export function referredTopics(turnInfo: string): string[] {
  if (!turnInfo.endsWith('-Q')) throw new Error(`Not a test turn: ${turnInfo}`);
  return [...turnInfo.slice(0, -2).matchAll(/[a-z]+-\d+/g)].map((m) => m[0]);
}

export function loadDialogs(file = sharedDatasetPath('mtbenchplus', 'mtbenchplus.json')): Dialog[] {
  const raw = JSON.parse(readFileSync(file, 'utf8')) as RawDialog[];
  return raw.map((d) => {
    const humans = d.conversations.filter((c) => c.from === 'human');
    const last = humans[humans.length - 1];
    const past = humans.slice(0, -1);
    const turnInfo = past.map((h) => h['turn-info'] ?? '');
    const topics = referredTopics(last['turn-info'] ?? '');
    const gold = topics.map((t) =>
      turnInfo.flatMap((info, k) => (info.startsWith(`${t}-`) ? [k] : [])),
    );
    if (gold.some((g) => g.length === 0)) {
      throw new Error(`${d.id}: a referred topic of ${last['turn-info']} has no earlier turn.`);
    }
    if (!TYPES.includes(d.type)) throw new Error(`${d.id}: unknown type ${d.type}`);
    return {
      id: d.id,
      type: d.type,
      turns: past.map((h) => h.value),
      turnInfo,
      message: last.value,
      topics,
      gold,
    };
  });
}

interface Hits {
  any: number;
  eachTopic: number;
  all: number;
}

function hits(dialog: Dialog, inSet: (k: number) => boolean): Hits {
  const perTopic = dialog.gold.map((g) => g.some(inSet));
  const gold = dialog.gold.flat();
  return {
    any: gold.some(inSet) ? 1 : 0,
    eachTopic: perTopic.every(Boolean) ? 1 : 0,
    all: gold.every(inSet) ? 1 : 0,
  };
}

/** Exact expected hits when `picked` of the rounds [0, candidates) are drawn at random. */
function chanceHits(dialog: Dialog, candidates: number, picked: number): Hits {
  const n = dialog.turns.length;
  const take = Math.min(picked, candidates);
  const total: Hits = { any: 0, eachTopic: 0, all: 0 };
  let subsets = 0;
  const chosen = new Uint8Array(n);
  for (let k = candidates; k < n; k++) chosen[k] = 1; // the verbatim recent rounds
  const visit = (from: number, left: number) => {
    if (left === 0) {
      const h = hits(dialog, (k) => chosen[k] === 1);
      total.any += h.any;
      total.eachTopic += h.eachTopic;
      total.all += h.all;
      subsets++;
      return;
    }
    for (let k = from; k <= candidates - left; k++) {
      chosen[k] = 1;
      visit(k + 1, left - 1);
      chosen[k] = 0;
    }
  };
  visit(0, take);
  return {
    any: total.any / subsets,
    eachTopic: total.eachTopic / subsets,
    all: total.all / subsets,
  };
}

type Scoring = 'dense' | 'bm25' | 'hybrid';
type Method = 'plain' | 'fragrel';
type SetKind = 'retrieved8' | 'prompt';

const METHODS: Record<Method, Partial<ChatMemoryOptions>> = {
  plain: { alpha: 0 },
  fragrel: { alpha: 0.5, wRel: 0.8 },
};
const SETS: Record<SetKind, { recentTurns: number; label: string }> = {
  retrieved8: { recentTurns: 0, label: 'retrieved 8 (recentTurns 0)' },
  prompt: { recentTurns: 2, label: 'prompt: 2 recent + 8 retrieved (app defaults)' },
};

interface Group {
  dialogs: number;
  any: number;
  eachTopic: number;
  all: number;
}

export interface MtBenchRow {
  set: SetKind;
  scoring: Scoring | 'chance';
  /** The sentence embedder behind dense and hybrid scores ('none' for BM25 and chance). */
  embedder: string;
  method: Method | 'chance';
  byType: Record<QuestionType | 'overall', Group>;
  /** Mean over dialogs of the 1-based rank (by final score among all past rounds) of the best gold turn. */
  meanBestGoldRank: number | null;
  perDialog: { id: string; included: number[]; hits: Hits; bestGoldRank: number | null }[];
}

function group(
  rows: { type: QuestionType; hits: Hits }[],
): Record<QuestionType | 'overall', Group> {
  const sum = (xs: { hits: Hits }[]): Group => ({
    dialogs: xs.length,
    any: xs.reduce((s, x) => s + x.hits.any, 0),
    eachTopic: xs.reduce((s, x) => s + x.hits.eachTopic, 0),
    all: xs.reduce((s, x) => s + x.hits.all, 0),
  });
  return {
    retrospection: sum(rows.filter((r) => r.type === 'retrospection')),
    continuation: sum(rows.filter((r) => r.type === 'continuation')),
    conjunction: sum(rows.filter((r) => r.type === 'conjunction')),
    overall: sum(rows),
  };
}

export interface MtBenchResults {
  dataset: string;
  dialogs: number;
  byType: Record<QuestionType, number>;
  pastRounds: { min: number; max: number; mean: number };
  goldTurns: { mean: number };
  memoryOnIn: number;
  definitions: Record<string, string>;
  rows: MtBenchRow[];
  seconds: number;
}

/** A named sentence embedder for dense and hybrid chat-memory scores. */
export interface MtBenchEmbedder {
  id: string;
  embed: ChatEmbedder;
}

/**
 * Runs an asynchronous embedder (the real MiniLM) ahead of time over every text the chat memory
 * will embed for these dialogs, and answers `planChatMemory`'s synchronous calls from that table.
 * The texts are found by planning once with a recording embedder, so nothing is guessed.
 */
export async function precomputedEmbedder(
  id: string,
  dim: number,
  embedAsync: (texts: readonly string[]) => Promise<Float32Array>,
  dialogs: readonly Dialog[],
): Promise<MtBenchEmbedder> {
  const wanted = new Set<string>();
  const record: ChatEmbedder = (texts) => {
    texts.forEach((t) => wanted.add(t));
    return { dim, count: texts.length, data: new Float32Array(dim * texts.length) };
  };
  for (const d of dialogs) {
    for (const recentTurns of [0, 2]) {
      planChatMemory(
        { rounds: d.turns.map((user) => ({ user })), message: d.message, embed: record },
        { scoring: 'dense', topTurns: TOP_TURNS, recentTurns },
      );
    }
  }
  const texts = [...wanted];
  const data = await embedAsync(texts);
  const row = new Map(texts.map((t, i) => [t, i]));
  const embed: ChatEmbedder = (asked): VectorSet => {
    const out = new Float32Array(dim * asked.length);
    asked.forEach((t, i) => {
      const k = row.get(t);
      if (k === undefined) throw new Error(`MTBench+: no precomputed vector for ${t.slice(0, 40)}`);
      out.set(data.subarray(k * dim, (k + 1) * dim), i * dim);
    });
    return { dim, count: asked.length, data: out };
  };
  return { id, embed };
}

export function runMtBench(
  dialogs = loadDialogs(),
  extraEmbedders: readonly MtBenchEmbedder[] = [],
): MtBenchResults {
  const t0 = performance.now();
  const glove = loadGloveFromDisk();
  const embedders: MtBenchEmbedder[] = [
    { id: 'GloVe', embed: (texts) => embedTexts(glove, texts) },
    ...extraEmbedders,
  ];
  const rows: MtBenchRow[] = [];
  // With the app's default switch (more than 10 rounds or 1K tokens), is memory on at all?
  const memoryOn = dialogs.filter(
    (d) =>
      planChatMemory({ rounds: d.turns.map((user) => ({ user })), message: d.message }).mode ===
      'memory',
  ).length;
  for (const setKind of Object.keys(SETS) as SetKind[]) {
    const { recentTurns } = SETS[setKind];
    const chance = dialogs.map((d) => ({
      type: d.type,
      hits: chanceHits(d, d.turns.length - Math.min(recentTurns, d.turns.length), TOP_TURNS),
    }));
    rows.push({
      set: setKind,
      scoring: 'chance',
      embedder: 'none',
      method: 'chance',
      byType: group(chance),
      meanBestGoldRank: null,
      perDialog: dialogs.map((d, i) => ({
        id: d.id,
        included: [],
        hits: chance[i].hits,
        bestGoldRank: null,
      })),
    });
    const runs = (['dense', 'bm25', 'hybrid'] as Scoring[]).flatMap(
      (scoring): { scoring: Scoring; embedder?: MtBenchEmbedder }[] =>
        scoring === 'bm25'
          ? [{ scoring, embedder: undefined }]
          : embedders.map((embedder) => ({ scoring, embedder })),
    );
    for (const { scoring, embedder } of runs) {
      for (const method of Object.keys(METHODS) as Method[]) {
        const perDialog = dialogs.map((d) => {
          const plan = planChatMemory(
            {
              rounds: d.turns.map((user) => ({ user })),
              message: d.message,
              embed: embedder?.embed,
            },
            { ...METHODS[method], scoring, topTurns: TOP_TURNS, recentTurns },
          );
          const included = new Set(plan.included);
          const bestGoldRank = Math.min(...d.gold.flat().map((k) => plan.rounds[k].rank)) + 1;
          return {
            id: d.id,
            type: d.type,
            included: plan.included,
            hits: hits(d, (k) => included.has(k)),
            bestGoldRank,
          };
        });
        rows.push({
          set: setKind,
          scoring,
          embedder: embedder?.id ?? 'none',
          method,
          byType: group(perDialog),
          meanBestGoldRank: perDialog.reduce((s, p) => s + p.bestGoldRank, 0) / perDialog.length,
          perDialog: perDialog.map(({ id, included, hits: h, bestGoldRank }) => ({
            id,
            included,
            hits: h,
            bestGoldRank,
          })),
        });
      }
    }
  }
  const rounds = dialogs.map((d) => d.turns.length);
  return {
    dataset:
      'MTBench+ (MemoChat), 27-dialog subset: ../shared/datasets/mtbenchplus/mtbenchplus.json',
    dialogs: dialogs.length,
    byType: {
      retrospection: dialogs.filter((d) => d.type === 'retrospection').length,
      continuation: dialogs.filter((d) => d.type === 'continuation').length,
      conjunction: dialogs.filter((d) => d.type === 'conjunction').length,
    },
    pastRounds: {
      min: Math.min(...rounds),
      max: Math.max(...rounds),
      mean: rounds.reduce((a, b) => a + b, 0) / rounds.length,
    },
    goldTurns: { mean: dialogs.reduce((s, d) => s + d.gold.flat().length, 0) / dialogs.length },
    memoryOnIn: memoryOn,
    definitions: {
      round: 'one past human turn (bot replies are empty in the data set)',
      query: 'the last past round + the new message (memoryQuery)',
      gold: "the past turns whose turn-info starts with a topic named in the final turn's turn-info",
      any: 'at least one gold turn is in the set',
      eachTopic:
        'at least one turn of every referred topic (differs from any only for conjunction)',
      all: 'every gold turn is in the set',
      retrieved8: 'the 8 rounds retrieved among all past rounds (recentTurns 0)',
      prompt: 'the 2 most recent rounds plus the 8 retrieved among the older ones (recentTurns 2)',
      chance: 'exact expectation with the same number of rounds drawn uniformly at random',
      meanBestGoldRank:
        '1-based rank by final score, among all past rounds, of the best-ranked gold turn',
    },
    rows,
    seconds: (performance.now() - t0) / 1000,
  };
}

const pct = (k: number, n: number) => `${Math.round((100 * k) / n)}%`;

/** Paired bootstrap 95% intervals on "all" per dialog (every gold turn in), at the prompt set ("any" is 100% for every scorer). */
export function mtBenchIntervals(r: MtBenchResults): string[] {
  const rowOf = (scoring: string, embedder: string, method: string) =>
    r.rows.find(
      (x) =>
        x.set === 'prompt' &&
        x.scoring === scoring &&
        x.embedder === embedder &&
        x.method === method,
    );
  const allOf = (row: MtBenchRow) => row.perDialog.map((p) => p.hits.all);
  const pts = (x: number) => (100 * x).toFixed(1);
  const out = [
    '| comparison (prompt set, all gold turns in, per dialog) | change in points [95% interval] |',
    '|---|---|',
  ];
  const scorers = [...new Set(r.rows.map((x) => `${x.scoring}|${x.embedder}`))].filter(
    (k) => !k.startsWith('chance'),
  );
  for (const k of scorers) {
    const [scoring, embedder] = k.split('|');
    const plain = rowOf(scoring, embedder, 'plain');
    const frag = rowOf(scoring, embedder, 'fragrel');
    if (!plain || !frag) continue;
    const d = pairedBootstrap(allOf(frag), allOf(plain));
    out.push(
      `| ${scoring}${embedder === 'none' ? '' : ` (${embedder})`}: FragRel vs plain | ${pts(d.mean)} [${pts(d.ci95[0])}, ${pts(d.ci95[1])}] |`,
    );
  }
  // Every embedder's plain dense and hybrid against plain BM25 (the books' reference scorer).
  const bm25 = rowOf('bm25', 'none', 'plain');
  const embedders = [...new Set(r.rows.map((x) => x.embedder))].filter((e) => e !== 'none');
  for (const e of bm25 ? embedders : []) {
    for (const scoring of ['dense', 'hybrid']) {
      const a = rowOf(scoring, e, 'plain');
      if (!a) continue;
      const d = pairedBootstrap(allOf(a), allOf(bm25!));
      out.push(
        `| ${scoring} plain: ${e} vs BM25 plain | ${pts(d.mean)} [${pts(d.ci95[0])}, ${pts(d.ci95[1])}] |`,
      );
    }
  }
  const extra = embedders.filter((e) => e !== 'GloVe');
  for (const e of extra) {
    for (const scoring of ['dense', 'hybrid']) {
      for (const method of ['plain', 'fragrel']) {
        const a = rowOf(scoring, e, method);
        const b = rowOf(scoring, 'GloVe', method);
        if (!a || !b) continue;
        const d = pairedBootstrap(allOf(a), allOf(b));
        out.push(
          `| ${scoring} ${method}: ${e} vs GloVe | ${pts(d.mean)} [${pts(d.ci95[0])}, ${pts(d.ci95[1])}] |`,
        );
      }
    }
  }
  return out;
}

export function mtBenchMarkdown(r: MtBenchResults): string {
  const name = { dense: 'dense', bm25: 'BM25', hybrid: 'hybrid', chance: 'chance' };
  const method = { plain: 'plain (α 0)', fragrel: 'FragRel (w_rel 0.8, α 0.5)', chance: 'random' };
  const out: string[] = [
    `MTBench+: ${r.dialogs} dialogs (${TYPES.map((t) => `${r.byType[t]} ${t}`).join(', ')}), ${r.pastRounds.min}-${r.pastRounds.max} past rounds (mean ${r.pastRounds.mean.toFixed(1)}), ${r.goldTurns.mean.toFixed(1)} gold turns per dialog on average; memory on in ${r.memoryOnIn} of ${r.dialogs}.`,
    'Cells: share of dialogs whose set holds at least one gold turn (any) / every gold turn (all); conjunction also: at least one turn of each of its two topics (each).',
  ];
  for (const setKind of Object.keys(SETS) as SetKind[]) {
    out.push('', `### ${SETS[setKind].label}`, '');
    out.push(
      '| scoring | method | retrospection any / all | continuation any / all | conjunction any / each / all | overall any / each / all | mean best gold rank |',
      '|---|---|---|---|---|---|---|',
    );
    for (const row of r.rows.filter((x) => x.set === setKind)) {
      const g = row.byType;
      const two = (x: Group) => `${pct(x.any, x.dialogs)} / ${pct(x.all, x.dialogs)}`;
      const three = (x: Group) =>
        `${pct(x.any, x.dialogs)} / ${pct(x.eachTopic, x.dialogs)} / ${pct(x.all, x.dialogs)}`;
      out.push(
        `| ${name[row.scoring]}${row.embedder === 'none' ? '' : ` (${row.embedder})`} | ${method[row.method]} | ${two(g.retrospection)} | ${two(g.continuation)} | ${three(g.conjunction)} | ${three(g.overall)} | ${row.meanBestGoldRank === null ? '-' : row.meanBestGoldRank.toFixed(2)} |`,
      );
    }
  }
  out.push('', '### Paired bootstrap 95% intervals', '', ...mtBenchIntervals(r));
  return out.join('\n');
}

export const mtbenchSection = {
  name: 'mtbench',
  description: 'Chat memory retrieval on MTBench+',
  run() {
    const results = runMtBench();
    return { results, markdown: mtBenchMarkdown(results) };
  },
};

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  // QUALITY_EMBEDDER: a comma list of the embedders added beside GloVe (distilled, minilm).
  const wanted = process.env.QUALITY_EMBEDDER?.split(',').filter(Boolean) ?? [];
  const extra: MtBenchEmbedder[] = [];
  let close = async () => {};
  if (wanted.includes('distilled')) {
    const { loadDistilledFromDisk } = await import('../test/distilled');
    const distilled = loadDistilledFromDisk();
    extra.push({ id: 'distilled', embed: (texts) => embedTexts(distilled, texts) });
  }
  if (wanted.includes('minilm')) {
    const { loadMiniLM } = await import('../test/real-models');
    const m = await loadMiniLM();
    extra.push(
      await precomputedEmbedder('MiniLM', m.dim, (texts) => m.embed(texts), loadDialogs()),
    );
    close = () => m.close();
  }
  const results = runMtBench(loadDialogs(), extra);
  await close();
  writeResults(['mtbench', ...wanted].join('-'), results);
  console.log(mtBenchMarkdown(results));
}
