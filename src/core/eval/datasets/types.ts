/**
 * @file The one shape every benchmark format is parsed into (docs/evaluation.md, "Formats"):
 * a list of questions, each with the document it is asked of, what a retriever is asked, the gold
 * answers (for LLM scoring) and the gold spans (for retrieval scoring). The evaluation page, the
 * grid runner and per-document tuning all read this shape, never a format's own fields.
 */
import type { Span } from '../retrieval';

export type BenchmarkFormat =
  'leval' | 'longbench' | 'hotpotqa' | 'musique' | 'mtbenchplus' | 'repoeval' | 'simple';

/** What each format is called where a person reads it. */
export const FORMAT_LABELS: Readonly<Record<BenchmarkFormat, string>> = Object.freeze({
  leval: 'L-Eval JSONL',
  longbench: 'LongBench JSONL',
  hotpotqa: 'HotpotQA JSON (gold paragraphs)',
  musique: 'MuSiQue / HippoRAG JSON (supporting paragraphs)',
  mtbenchplus: 'MTBench+ dialogs (JSON)',
  repoeval: 'RepoEval function-level JSONL with its repository files',
  simple: 'FragRel simple JSONL {document, question, answers, gold_passages}',
});

/** The sentence a file in no known format gets (it names every format expected). */
export const EXPECTED_FORMATS =
  'Expected one of: L-Eval JSONL (input, instructions, outputs); LongBench JSONL (context, input, answers); ' +
  'HotpotQA JSON (an array with para_a/para_b/supporting_facts, or context/supporting_facts); ' +
  'MuSiQue JSON (an array with paragraphs marked is_supporting); MTBench+ JSON (an array of dialogs with conversations); ' +
  'RepoEval function-level JSONL (prompt, metadata.task_id) dropped with its repo_files.jsonl; ' +
  'or the simple JSONL {document, question, answers, gold_passages} (docs/evaluation.md).';

/** One question of a benchmark, whatever its format. */
export interface BenchmarkItem {
  /** Stable over re-parsing the same file: results are stored and resumed by it. */
  id: string;
  /** Items with the same documentId share `document` (indexed once per fragment size). */
  documentId: string;
  document: string;
  /**
   * Fixed fragments (paragraphs, turns) when the format defines them; fragment sizes then do not
   * apply (as bench/quality.ts does for MuSiQue).
   */
  fixedFragments?: Span[];
  /** What a retriever is asked (QuALITY: the stem without its options). */
  question: string;
  /** The question as an LLM is asked it (with its options for multiple choice). */
  prompt: string;
  /** Gold answers, for F1 / EM / contain-match (empty: none given, e.g. MTBench+). */
  answers: string[];
  /** Multiple choice: the gold option letter ("B"); absent otherwise. */
  answerLetter?: string;
  /** Gold spans in `document` (empty: no passage given or located; gold recall not measured). */
  gold: Span[];
  /** Text whose content words answer-in-context looks for in the selection (null: not measured). */
  answerText: string | null;
  /** Sub-set, task type or repository, for grouping. */
  group: string;
}

export interface ParsedBenchmark {
  format: BenchmarkFormat;
  label: string;
  items: BenchmarkItem[];
  /** Distinct documents. */
  documents: number;
  /** Questions of the file left out because nothing could be measured on them. */
  skipped: number;
  /** Questions kept whose gold passage was not located (answer-in-context only). */
  unlocated: number;
  /** What the parser decided that a person should know (gold definitions, companions used). */
  notes: string[];
}

export type BenchmarkParse = { ok: true; value: ParsedBenchmark } | { ok: false; error: string };

/** A file the person dropped along with the benchmark (RepoEval's repository files). */
export interface CompanionFile {
  name: string;
  text: string;
}
