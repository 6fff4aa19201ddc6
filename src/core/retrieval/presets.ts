/**
 * @file Retrieval presets per document kind: the configuration measured best on the tune half of
 * `npm run bench:quality` ("measured", the app's default) and the paper's exact settings ("paper
 * defaults", one click away). Each carries a short text the panel shows to say which
 * configuration is on and why. The numbers quoted are from bench/results/quality*.json (tune half
 * for the choice, held-out half for what to expect); BENCHMARKS.md has the tables.
 */
import { defaultsByTextKind } from '../options';
import type { TextKind } from '../types';
import type { RelationKind } from '../relations/kinds';

export type PresetId = 'measured' | 'paper';
export type PresetScoring = 'dense' | 'bm25' | 'hybrid';
export type PresetRelation = Exclude<RelationKind, 'section'>;
/** Query terms used for BM25 and embedded for dense scores: all, or without function and question words (retrieval/query.ts). */
export type QueryWords = 'all' | 'content';

/**
 * The transformer embedder the books' second measured preset was chosen with (all-MiniLM-L6-v2,
 * the app's recommended upgrade): with it loaded, "measured" means that preset.
 */
export const MINILM_EMBEDDER_ID = 'all-MiniLM-L6-v2';

export interface RetrievalPreset {
  id: PresetId;
  kind: TextKind;
  /** The embedder this preset was measured with (absent: any; BM25 needs none). */
  embedder?: string;
  label: string;
  scoring: PresetScoring;
  queryWords: QueryWords;
  relations: PresetRelation[];
  alpha: number;
  wRel: number;
  /** Prose: fragment length in words (null: not a prose setting). */
  wordsPerFragment: number | null;
  /** One or two sentences for the panel: what is on and why. */
  why: string;
}

const paper = defaultsByTextKind;

/**
 * Eq. 10's alpha for the measured code preset. The paper's 0.5 was set for relations whose
 * environment scores sum a window's neighbours; the multi-hop walk's scores are a distribution
 * put on the scale of the best independent score, and with the walk squared and BM25 reading scope
 * names, alpha 1 (independent and environment on equal terms) was on the best plateau of both tune
 * halves: RepoEval's (0.5 to 2 measured; 1.5 and 2 within two tasks of 1) and the 23 questions in
 * words (0.75 to 1.5 tied; 2 worse). BENCHMARKS.md, "Scope names and alpha 1 for code".
 */
export const MEASURED_CODE_ALPHA = 1;

/** Chat has no measured configuration of its own: both of its presets are the paper's settings. */
function chatPreset(id: PresetId, label: string, why: string): RetrievalPreset {
  return {
    id,
    kind: 'chat',
    label,
    scoring: 'dense',
    queryWords: 'all',
    relations: ['context'],
    alpha: paper.chat.alpha,
    wRel: paper.chat.wRel,
    wordsPerFragment: null,
    why,
  };
}

export const retrievalPresets: Readonly<Record<TextKind, Record<PresetId, RetrievalPreset>>> =
  Object.freeze({
    prose: {
      measured: {
        id: 'measured',
        kind: 'prose',
        label: 'Measured best (books)',
        scoring: 'bm25',
        queryWords: 'content',
        relations: ['ppr'],
        alpha: paper.prose.alpha,
        wRel: paper.prose.wRel,
        wordsPerFragment: 100,
        why:
          'BM25 on the question without its function and question words, 100-word fragments, ' +
          'and the multi-hop relation (personalised PageRank over neighbouring fragments, ' +
          'alpha 0.5): the best of 98 configurations on the tune half of QuALITY, Qasper, ' +
          'SFiction, bAbI-in-a-book and MuSiQue, re-chosen with the offline distilled vectors ' +
          'in the grid (dense, hybrid and fused scores; 100 and 200 words; BENCHMARKS.md). It ' +
          'needs no download and no wait. On the held-out half, against plain BM25 over the ' +
          'whole question (books pooled): +5.5 [+1.6, +9.7] points of gold recall at 1K words ' +
          'and +3.7 [−0.1, +7.5] at 2K, the second within noise; the relation alone, over ' +
          'plain BM25 on the same words, is within the noise of plain retrieval (+2.1 [−1.5, ' +
          '+5.9] at 1K), and on MuSiQue the default is 5 points below plain BM25 at 1K words. ' +
          'Better on questions in other words, slower: MiniLM (a 23 MB download; embedding a ' +
          'whole book takes minutes, War and Peace about 10-16 on this machine), which has its ' +
          'own preset.',
      },
      paper: {
        id: 'paper',
        kind: 'prose',
        label: 'Paper defaults',
        scoring: 'dense',
        queryWords: 'all',
        relations: ['context'],
        alpha: paper.prose.alpha,
        wRel: paper.prose.wRel,
        wordsPerFragment: 500,
        why:
          "The FragRel paper's book settings: dense retrieval, 500-word fragments, the context " +
          'relation with w_rel 0.3 and alpha 0.5.',
      },
    },
    code: {
      measured: {
        id: 'measured',
        kind: 'code',
        label: 'Measured best (code)',
        scoring: 'bm25',
        queryWords: 'all',
        relations: ['ppr'],
        alpha: MEASURED_CODE_ALPHA,
        wRel: paper.code.wRel,
        wordsPerFragment: null,
        why:
          'BM25 and the multi-hop relation over the code-structure edges, each edge weighted by ' +
          'how often the target window’s definitions are referenced (1 + ln(1 + refs)) and ' +
          'squared, so a window’s strong links such as its calls carry the walk (personalised ' +
          'PageRank from the 5 best windows, top 10 windows): on RepoEval’s tune half ' +
          'window recall +4.9 [+1.2, +9.5] over BM25; on held-out +7.7 [+0.8, +15.2] window ' +
          'recall and +11.9 [+1.7, +22.0] hit@10. BM25 also reads each window’s class and ' +
          'function names, and alpha is 1: on RepoEval’s held-out half a further +2.2 window ' +
          'recall and +3.4 hit@10, within noise, with no loss on the questions in words ' +
          '(BENCHMARKS.md).',
      },
      paper: {
        id: 'paper',
        kind: 'code',
        label: 'Paper defaults',
        scoring: 'bm25',
        queryWords: 'all',
        relations: ['code'],
        alpha: paper.code.alpha,
        wRel: paper.code.wRel,
        wordsPerFragment: null,
        why: "The FragRel paper's code settings: BM25, code-structure relation, alpha 0.5.",
      },
    },
    chat: {
      measured: chatPreset(
        'measured',
        'Chat defaults',
        "The paper's chat-memory settings (top 8 turns, context relation with w_rel 0.8, " +
          'alpha 0.5): MTBench+ has 27 dialogs, too few to tune on, so they stay.',
      ),
      paper: chatPreset(
        'paper',
        'Paper defaults',
        "The FragRel paper's chat-memory settings: context relation, w_rel 0.8, alpha 0.5.",
      ),
    },
  });

/**
 * Books with MiniLM loaded: the best app-runnable configuration on the tune half of
 * bench/results/quality-minilm.json (QuALITY, Qasper, SFiction, MuSiQue at 200 words, mean gold
 * recall at 1K and 2K words): hybrid on the question's content words with the context and
 * semantic relations, 76.4 against 75.1 for the no-download preset's configuration and 75.9 for
 * plain hybrid. Measured at 200 words only (100-word fragments were not embedded on this machine in
 * time), so the preset keeps 200. MiniLM reads at most 512 word pieces (the app passes no length,
 * so transformers.js truncates at the tokenizer's model_max_length), which a 200-word fragment
 * (about 260 pieces) never reaches.
 */
export const miniLmBookPreset: Readonly<RetrievalPreset> = Object.freeze<RetrievalPreset>({
  id: 'measured',
  kind: 'prose',
  embedder: MINILM_EMBEDDER_ID,
  label: 'Measured best (books, MiniLM)',
  scoring: 'hybrid',
  queryWords: 'content',
  relations: ['context', 'semantic'],
  alpha: paper.prose.alpha,
  wRel: paper.prose.wRel,
  wordsPerFragment: 200,
  why:
    'With MiniLM loaded: hybrid scores (BM25 and MiniLM embeddings) on the question without its ' +
    'function and question words, 200-word fragments, the context and semantic relations ' +
    '(alpha 0.5): the best configuration the app runs on the tune half of QuALITY, Qasper, ' +
    'SFiction and MuSiQue with MiniLM (BENCHMARKS.md). The relations add little over plain ' +
    'hybrid there (+0.5 points on the tune half).',
});

/**
 * The preset of a document kind (the measured one unless asked for the paper's). For books the
 * measured preset depends on the embedder: MiniLM has its own (miniLmBookPreset).
 */
export function retrievalPreset(
  kind: TextKind,
  id: PresetId = 'measured',
  embedderId?: string,
): RetrievalPreset {
  if (kind === 'prose' && id === 'measured' && embedderId === MINILM_EMBEDDER_ID) {
    return miniLmBookPreset;
  }
  return retrievalPresets[kind][id];
}
