/**
 * @file One interface for every answer pipeline (FragRel, LongRAG, SEGMENT+, QRMeM; see
 * ../shared/PIPELINES.md section 1 and DESIGN.md section 3).
 *
 * A pipeline is a function `(input: PipelineInput<S>) => Promise<PipelineOutput>`:
 *
 * - **Input.** The question; the ticked documents as the library holds them (`PipelineLibrary`:
 *   their texts, their fragments in run order, and every fragment's independent score s_ind for
 *   the question from the library's scorer, plus FragRel's own selection); a narrow LLM
 *   (`PipelineLlm`: one chat call, the engine's token counter, its context window and how many
 *   calls it may run at once); an optional cross-encoder (`PipelineReranker`); the pipeline's
 *   settings `S`; an abort signal and a progress callback.
 * - **Output.** The answer, its citations (labels that open fragments), and a `Trace`. An error is
 *   a value (`error`), never a throw: what was done before it stays in the trace.
 *
 * **The trace** is the same shape for every pipeline, so one view can draw any of them:
 * - `steps`: every step in order (`longrag.retrieve`, `segment.merge.1`, ...), with when it ran,
 *   a short JSON-able summary of its input and output, and notes (fallbacks, repairs);
 * - `calls`: every LLM call: its step, its tag (`longrag.cot`, `longrag.filter`, `segment.note`,
 *   `qrmem.judge`, ...), the messages sent, the response, tokens in and out, start and end, and
 *   the calls whose output it read (`after`), from which the critical path is computed;
 * - `items`: every unit a step kept or dropped (chunks, paragraphs, notes, segments, entities),
 *   each with its scores and a verdict with a reason;
 * - `sizes`: every size adapted to the engine's context (PIPELINES.md section 8), with why;
 * - `graph`: an optional payload for pipelines with a structure (SEGMENT+'s merge tree, QRMeM's
 *   entity graph): nodes and edges that refer to items by id.
 *
 * Times are milliseconds since the run started, from the injected clock (`TraceClock`), so tests
 * can use a logical clock.
 *
 * **Adding a pipeline**: a folder `src/core/pipelines/<name>/` exporting
 * `xPipeline: Pipeline<XSettings>` and `defaultXSettings`; inside, one `TraceRecorder` (trace.ts),
 * a `rec.step(...)` per step, every LLM call through `rec.call(step, { tag: '<name>.<role>', ... })`
 * (never `llm.chat` directly: the recorder applies the concurrency limit, Stop, retries and the
 * trace), `rec.item(...)` for what is kept or dropped, `rec.size(...)` for adapted sizes,
 * `rec.graph(...)` for a structure, and the body wrapped in `runTraced`. Tests drive it with
 * `fakeLlm` (testing.ts). Then its one entry in the table, src/core/pipelines/registry.ts (its
 * settings in `PipelineSettings`, and name, summaries, defaults, runner, helper models, usage
 * rule), and its colour and settings fields in src/ui/pipelines/registry.ts (typed by the
 * table's ids: it does not compile without them). The pipelines panel, Compare, the evaluation
 * page and the estimates offer it from there; registry.test.ts runs it.
 *
 * Pure: no DOM, no engine. Everything here is plain data and can be shown, copied or stored.
 */
import type { AbortSignalLike } from '../abort';
import type { PromptBudget, PromptMessage, PromptResult, PromptStyle } from '../prompt';
import type { TextKind } from '../types';

// ---------------------------------------------------------------------------------------------
// The LLM, narrowed to what a pipeline needs

/** An engine's failure, as the engines report it (structurally src/llm/types.ts's LlmError). */
export interface ChatError {
  /** 'auth' | 'rate-limit' | 'server' | 'network' | 'aborted' | 'context-length' | ... */
  code: string;
  /** What happened and what to do next, in plain words. */
  message: string;
  retryAfterSeconds?: number;
  status?: number;
  detail?: string;
}

export interface ChatOptions {
  /** Most tokens to generate (the call's output budget, reserved in its prompt's fitting). */
  maxTokens: number;
  /** PIPELINES.md 2.2 "Decoding": temperature 0 is recommended for every pipeline call. */
  temperature?: number;
  stop?: string[];
  signal: AbortSignalLike;
  /** The step tag of this call: `longrag.cot`, `segment.note`, ... (the fake LLM routes on it). */
  tag: string;
  /**
   * The same prompt as one text, for engines whose `promptStyle` is 'text'; by default the
   * messages' contents joined (messages.ts).
   */
  text?: string;
  /** Each piece of the reply as it arrives (the final answer streams into the page). */
  onToken?: (piece: string) => void;
}

export type ChatResult =
  | {
      ok: true;
      text: string;
      finish: 'stop' | 'length';
      tokensIn?: number;
      tokensOut?: number;
      tokensReused?: number;
    }
  | {
      ok: false;
      text: string;
      error: ChatError;
      tokensIn?: number;
      tokensOut?: number;
      tokensReused?: number;
    };

/**
 * The LLM a pipeline talks to: a narrow view of the streaming `LlmEngine` (src/llm/types.ts),
 * adapted in src/llm/pipeline-llm.ts, and of the scripted fake in ./testing.ts.
 */
export interface PipelineLlm {
  /** Model and where it runs, for people. */
  readonly label: string;
  /** Tokens the model reads and writes in one request. */
  readonly contextLimit: number;
  readonly promptStyle: PromptStyle;
  /** True when `countTokens` is the model's own tokenizer, false for an estimate. */
  readonly exactTokenCounts: boolean;
  /** How many calls may run at once: 1 for in-browser engines, a few for APIs. */
  readonly concurrency: number;
  /** Tokens of a text in this model's tokenizer (or the estimate). */
  countTokens(text: string, signal?: AbortSignalLike): Promise<number>;
  /** One chat call. Never throws: failures and stops are `{ ok: false }`. */
  chat(messages: readonly PromptMessage[], options: ChatOptions): Promise<ChatResult>;
  /**
   * Fit one of the core's prompt builders to this engine's context leaving `answerTokens` free
   * (src/llm/fit.ts for real engines), so FragRel's pipeline fits exactly as the answer panel did.
   */
  fitPrompt(
    build: (budget: PromptBudget) => PromptResult,
    answerTokens: number,
    signal?: AbortSignalLike,
  ): Promise<PromptResult>;
}

/** Tokens a chat template adds around a call (PIPELINES.md section 8: "about 50"). */
export const TEMPLATE_OVERHEAD_TOKENS = 50;

// ---------------------------------------------------------------------------------------------
// The library, as the pipelines read it

export interface PipelineDocument {
  docId: string;
  name: string;
  kind: TextKind;
  /** The document's source text; fragments are spans of it. */
  text: string;
}

/** A fragment of the run: fragment `index` of the retrieval run (what a citation opens). */
export interface PipelineFragment {
  index: number;
  docId: string;
  /** Position in its document, 0-based (Eq. 7's loc). */
  ordinal: number;
  /** Character span in the document's text, half-open. */
  start: number;
  end: number;
  /** Chapter, `file:12-31`, `turn 4`. */
  label?: string;
}

export interface PipelineLibrary {
  documents: PipelineDocument[];
  /** Every fragment of the ticked documents in run order (documents in turn, ordinals ascending). */
  fragments: PipelineFragment[];
  /** s_ind of every fragment for the question (Eq. 4), from the library's scorer. */
  independent: Float64Array;
  /** FragRel's final score s_rel of every fragment (Eq. 10), when the run computed it. */
  final?: Float64Array;
  /** Which scorer gave `independent`, for the trace: "dense (GloVe)", "BM25". */
  scorer: string;
  /** FragRel's selection (Eq. 11): fragment indices in document order and in rank order. */
  selection?: { indices: number[]; ranked: number[] };
}

/** A cross-encoder: one relevance logit per (question, text) pair. */
export interface PipelineReranker {
  /** The model, for the trace. */
  name: string;
  score(question: string, texts: string[], signal: AbortSignalLike): Promise<Float64Array>;
}

/**
 * The library's embedder as the pipelines read it (QRMeM's edge similarity): the static GloVe
 * vectors or the transformer the library uses, never a fake in the product. Rows are
 * L2-normalised, so a dot product is the cosine.
 */
export interface PipelineEmbedder {
  /** The model, for the trace: "static GloVe 100d", "Xenova/all-MiniLM-L6-v2". */
  name: string;
  /** `kind`: E5-style models embed a query and the passages it is matched with differently. */
  embed(
    texts: readonly string[],
    kind: 'query' | 'passage',
    signal: AbortSignalLike,
  ): Promise<Float32Array[]>;
}

/**
 * Where a pipeline keeps what it built of a document that does not depend on the question
 * (QRMeM's segments and named entities), so the next question on the same document reuses it:
 * the library's IndexedDB store on the page, a Map in tests. Values are plain JSON-able data.
 */
export interface PipelineMemory {
  get(docId: string, key: string): Promise<unknown>;
  /** Resolves false when nothing was written (the document is gone). Never throws. */
  put(docId: string, key: string, value: unknown): Promise<boolean>;
}

export interface PipelineProgress {
  /** The step running now (the latest started). */
  step: string;
  stepLabel: string;
  callsDone: number;
  callsRunning: number;
  /** Calls waiting for a free slot under the engine's concurrency limit. */
  callsQueued: number;
  tokensIn: number;
  tokensOut: number;
  /** The trace so far (the recorder's own object, updated in place; complete at the end). */
  trace: Trace;
}

export interface PipelineInput<S> {
  question: string;
  library: PipelineLibrary;
  llm: PipelineLlm;
  /** LongRAG's cross-encoder; without one it ranks by `library.independent` and says so. */
  reranker?: PipelineReranker;
  /** The library's embedder (QRMeM's edge and segment similarity). */
  embedder?: PipelineEmbedder;
  /** Question-independent memory per document (QRMeM); without it everything is rebuilt. */
  memory?: PipelineMemory;
  settings: S;
  signal: AbortSignalLike;
  onProgress?: (progress: PipelineProgress) => void;
  /** The final answer's text as it streams in (the intermediate calls do not stream). */
  onAnswerToken?: (piece: string) => void;
  /** Milliseconds, monotonic; `Date.now` by default. */
  clock?: TraceClock;
  /**
   * Waits `ms` (or until `signal` aborts). With it, a call that fails with a rate limit, a server
   * error or a lost connection before any text arrived is retried (see trace.ts); without it the
   * first failure ends the run.
   */
  sleep?: (ms: number, signal: AbortSignalLike) => Promise<void>;
}

// ---------------------------------------------------------------------------------------------
// The answer and its trace

/** A label the answer can cite: `[label]` opens fragment `index`. */
export interface PipelineCitation {
  label: number;
  index: number;
  location: string;
}

export interface PipelineOutput {
  /** 'done', 'stopped' by the person, or 'error' (then `error` says why; the trace keeps the rest). */
  status: 'done' | 'stopped' | 'error';
  /** The answer text ('' when it was not reached). */
  answer: string;
  citations: PipelineCitation[];
  error?: ChatError;
  trace: Trace;
}

export type TraceClock = () => number;

export type StepStatus = 'running' | 'done' | 'failed' | 'stopped';

export interface TraceStep {
  /** Unique in the trace: `longrag.filter`, `segment.merge.2`. */
  id: string;
  /** For people: "Filter each chunk by the chain of thought". */
  label: string;
  status: StepStatus;
  startMs: number;
  endMs?: number;
  /** Short JSON-able summaries (counts, ids, sizes), not whole texts. */
  input?: Record<string, unknown>;
  output?: Record<string, unknown>;
  /** Fallbacks taken, repairs made, defaults assumed. */
  notes: string[];
}

export type CallStatus = 'queued' | 'running' | 'ok' | 'error' | 'stopped';

export interface TraceCall {
  /** 0, 1, 2, ... in the order the calls were made. */
  id: number;
  stepId: string;
  tag: string;
  /** Index of this call among the calls with the same tag, 0-based. */
  tagIndex: number;
  messages: PromptMessage[];
  maxTokens: number;
  temperature?: number;
  response: string;
  status: CallStatus;
  error?: ChatError;
  /** The engine's counts when it reports them, else the counter's. */
  tokensIn: number;
  tokensOut: number;
  /**
   * Of `tokensIn`, those the engine took from its cache of an earlier call with the same prefix
   * instead of reading them again (in-browser engines report it; absent otherwise).
   */
  tokensReused?: number;
  /** When the call was made (queued), started (got a slot) and ended. */
  queuedMs: number;
  startMs?: number;
  endMs?: number;
  /** Ids of the calls whose output this call's prompt contains (edges of the call graph). */
  after: number[];
  /** What parsing its reply did: "parsed JSON", "repaired JSON", "fell back to ...". */
  parse?: string;
  /** Failed attempts before the last one, each with the wait before the next. */
  retries?: Array<{ code: string; message: string; waitMs: number }>;
}

export type Verdict = 'kept' | 'dropped';

export interface TraceItem {
  /** Unique in the trace: `chunk:12`, `note:3`, `merge:2.0`. */
  id: string;
  /** 'chunk' | 'paragraph' | 'segment' | 'note' | 'fragment' | 'entity' | ... */
  kind: string;
  /** The step that judged it. */
  stepId: string;
  /** Short label for lists: the location, "segment 3 (2,480 tokens)". */
  label: string;
  /** The item's text (or its start, for long ones). */
  text: string;
  /** Fragments it covers (what its citation opens). */
  fragments?: number[];
  /** Named scores: { dense: 0.41, rerank: 7.2 }. */
  scores?: Record<string, number>;
  /** Its rank in the step's order, 0-based. */
  rank?: number;
  verdict: Verdict;
  reason: string;
}

/** A size chosen for this engine (PIPELINES.md section 8). */
export interface TraceSize {
  name: string;
  value: number;
  unit: 'tokens' | 'words' | 'items' | 'rounds';
  /** "context 4,096 - prompt 400 - output 768 - margin 200". */
  why: string;
}

/** Structure a pipeline builds (SEGMENT+'s merge tree, QRMeM's graph); ids refer to items. */
export interface TraceGraph {
  kind: string;
  nodes: Array<{ id: string; label: string; group?: string }>;
  edges: Array<{ from: string; to: string; label?: string; weight?: number }>;
}

export interface CriticalPath {
  /** The chain of calls, each waiting on the one before, with the longest total duration. */
  calls: number[];
  /** Sum of their durations. */
  ms: number;
}

export interface Trace {
  pipeline: string;
  question: string;
  engine: string;
  /** The settings the run used, after defaults. */
  settings: Record<string, unknown>;
  startMs: number;
  endMs?: number;
  steps: TraceStep[];
  calls: TraceCall[];
  items: TraceItem[];
  sizes: TraceSize[];
  graph?: TraceGraph;
  criticalPath: CriticalPath;
  /** Concurrency the engine allowed. */
  concurrency: number;
}

/** A pipeline: the four of the product and any later one share this signature. */
export type Pipeline<S> = (input: PipelineInput<S>) => Promise<PipelineOutput>;
