/**
 * @file The answer to the current question: pick an engine, press Answer, read the streamed
 * answer whose citations open their fragments; stop, regenerate, copy, and see the exact prompt.
 *
 * The panel asks nothing of the network by itself. An API engine is called when the person
 * presses Answer; an in-browser model is downloaded when they press Load (or Answer). The engine
 * and its settings are the workspace's (useEngine.tsx), shared with the chat.
 */
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { citedLabels } from '../../core/citations';
import { inferCitations } from '../../core/evidence/attribute';
import { storyQaPrompt, type PromptSource } from '../../core/prompt';
import type { FinishReason, GenerateStats, LlmError } from '../../llm/types';
import type { RetrievalResult } from '../../workers/retrieval-types';
import { MarkdownAnswer } from '../markdown/MarkdownAnswer';
import { answerMarkdownForCopy } from '../markdown/render';
import { ErrorBox } from '../components/ErrorBox';
import type { CitationRecord } from '../../store';
import { selectedFragments } from './fragments';
import { documentOf } from '../../workers/retrieval-types';
import {
  fitAndGenerate,
  settledRun,
  streamInto,
  type GenerationRun,
  NOTHING_YET,
} from './generate';
import { PromptDetails } from './PromptDetails';
import { AnswerSources } from './AnswerSources';
import { RECOMMENDED_ONNX_MODEL } from '../../llm/onnx/catalogue';
import { localSourceOf } from '../../llm/engines';
import { isApiEngine } from '../../llm/settings';
import { localSourceKey } from './useLocalModel';
import { useKeptModel } from './useKeptModel';
import { readingBudget, type ReadingBudget } from '../../llm/reading-budget';
import {
  localModelName,
  measuredSpeed,
  noteAnswerSpeed,
  ReadingBudgetLine,
  type SpeedKind,
} from './ReadingBudget';
import { SharedEngineSettings, useEngine } from './useEngine';
import { EngineFold, engineSummary, useEngineFold } from './EngineFold';
import { useNarrowScreen } from '../layout/useNarrowScreen';
import './answer.css';

export interface AnswerPanelProps {
  /** The current retrieval result (null before the first question). */
  result: RetrievalResult | null;
  /** Source text per document id. */
  sources: ReadonlyMap<string, string>;
  /** Open a fragment in the reader; `label`: the citation, `claim`: the answer's sentence. */
  onCite: (fragmentIndex: number, claim?: string) => void;
  /**
   * Answer at once when this changes (a new question was asked) and an engine is ready: an API
   * engine with its settings, or an in-browser model already loaded. Nothing is downloaded
   * without a click.
   */
  autoAnswer?: number;
  /** A run ended with some text (done or stopped): for the question history. */
  onAnswered?: (answer: {
    question: string;
    text: string;
    citations: CitationRecord[];
    engine: string;
  }) => void;
}

type RunStatus = 'preparing' | 'loading' | 'streaming' | 'done' | 'stopped' | 'error';

interface Run extends GenerationRun<RunStatus> {
  question: string;
  finish: FinishReason | null;
  /**
   * An in-browser model's reading budget for this answer: its engine kind and model (a GGUF
   * file, an ONNX hub id), the passage tokens.
   */
  reading: { kind: SpeedKind; model: string; budget: ReadingBudget } | null;
}

const STATUS_TEXT: Record<RunStatus, string> = {
  preparing: 'Preparing the prompt…',
  loading: 'Loading the model…',
  streaming: 'Writing…',
  done: 'Done.',
  stopped: 'Stopped.',
  error: 'The answer could not be completed.',
};

export function AnswerPanel({ result, sources, onCite, autoAnswer, onAnswered }: AnswerPanelProps) {
  const engine = useEngine();
  const [run, setRun] = useState<Run | null>(null);
  const [copied, setCopied] = useState<'copied' | 'failed' | null>(null);
  const [activeLabel, setActiveLabel] = useState<number | null>(null);
  const abort = useRef<AbortController | null>(null);
  const runId = useRef(0);

  useEffect(() => () => abort.current?.abort(), []);

  const fragments = useMemo(
    () => (result ? selectedFragments(result, sources) : null),
    [result, sources],
  );
  const busy = run !== null && ['preparing', 'loading', 'streaming'].includes(run.status);

  /** Why Answer cannot be pressed now, or null. */
  const blocker = ((): string | null => {
    if (!result)
      return 'Ask a question first: the answer is written from the fragments it selects.';
    if (result.selected.length === 0) return 'No fragments were selected for this question.';
    if (!fragments) return 'Loading the text of the selected fragments…';
    return engine.problem;
  })();

  const answer = useCallback(async () => {
    if (!result || !fragments) return;
    abort.current?.abort();
    const controller = new AbortController();
    abort.current = controller;
    const id = ++runId.current;
    const question = result.question;
    const update = (patch: Partial<Run>) =>
      setRun((r) => (r && r.id === id ? { ...r, ...patch } : r));
    setCopied(null);
    setActiveLabel(null);
    setRun({ id, question, status: 'preparing', ...NOTHING_YET, finish: null, reading: null });
    const failWith = (error: LlmError) =>
      update({ status: error.code === 'aborted' ? 'stopped' : 'error', error });

    const acquired = await engine.acquire(controller.signal, () => update({ status: 'loading' }));
    if (!('generate' in acquired)) return failWith(acquired);
    const llm = acquired;
    if (controller.signal.aborted) return failWith({ code: 'aborted', message: 'Stopped.' });

    // Never reserve more than half the window for the answer: the excerpts need room too.
    const answerTokens = Math.min(engine.settings.answerTokens, Math.floor(llm.contextLimit / 2));
    // A model on this machine's CPU gets the passages it reads in a few seconds here
    // (reading-budget.ts); API engines and WebLLM on the GPU get the whole window.
    const speedKind = llm.kind === 'wllama' || llm.kind === 'onnx' ? llm.kind : null;
    const model = speedKind ? localModelName(engine.localSource) : null;
    const budget =
      model && speedKind
        ? readingBudget({
            promptTokensPerSecond: measuredSpeed(model, speedKind)?.promptTokensPerSecond,
            contextLimit: llm.contextLimit,
            answerTokens,
            scale: engine.settings.passageScale,
          })
        : null;
    const passageTokens = budget?.tokens ?? null;
    update({
      status: 'preparing',
      engineLabel: llm.label,
      reading: model && budget && speedKind ? { kind: speedKind, model, budget } : null,
    });
    const generated = await fitAndGenerate(
      llm,
      (budget) =>
        storyQaPrompt(
          { question, fragments },
          passageTokens !== null ? { ...budget, passageTokens } : budget,
        ),
      {
        answerTokens,
        temperature: engine.settings.temperature,
        signal: controller.signal,
        ...streamInto(llm, id, setRun),
      },
    );
    if (!generated.ok) return failWith(generated.error);
    const { outcome } = generated;
    if (abort.current === controller) abort.current = null;
    // Measured on use: the next answer's budget, and the catalogue's seconds per answer.
    if (model && speedKind && outcome.ok) noteAnswerSpeed(model, outcome.stats, speedKind);
    update({ ...settledRun(outcome), ...(outcome.ok ? { finish: outcome.finish } : {}) });
    const text = outcome.text;
    if (text && onAnswered) {
      // Each label as the history keeps it: the document and the fragment's ordinal in it.
      const citations: CitationRecord[] = [];
      for (const s of generated.prompt.sources) {
        const doc = documentOf(result, s.index);
        if (doc)
          citations.push({
            label: s.label,
            docId: doc.docId,
            ordinal: s.index - doc.offset,
            location: s.location,
          });
      }
      onAnswered({ question, text, citations, engine: llm.label });
    }
  }, [result, fragments, engine, onAnswered]);

  const stop = () => abort.current?.abort();

  // Answer first: a question asked with a ready engine is answered without a second click.
  // A model kept in this browser but not loaded (after a reload) counts as ready: asking loads it
  // from the disk, and nothing is downloaded.
  const kept = useKeptModel(engine.localSource, engine.local.state?.status ?? null);
  const ready =
    engine.problem === null &&
    (isApiEngine(engine.settings.kind) ||
      kept !== null ||
      (engine.local.state?.status === 'ready' &&
        engine.localSource !== null &&
        engine.local.state.key === localSourceKey(engine.localSource)));
  // Decided once per question, when its fragments' text is at hand: an engine set up later does
  // not answer an older question by itself (it might be one the person never meant to send).
  const answered = useRef<number | undefined>(autoAnswer);
  useEffect(() => {
    if (autoAnswer === undefined || answered.current === autoAnswer || !fragments) return;
    if (!ready || blocker !== null || busy) {
      answered.current = autoAnswer;
      return;
    }
    // Started from a task, not the effect body: the run's own state updates then render once.
    const start = setTimeout(() => {
      answered.current = autoAnswer;
      void answer();
    }, 0);
    return () => clearTimeout(start);
  }, [autoAnswer, fragments, ready, blocker, busy, answer]);

  const cite = (source: PromptSource, claim?: string) => {
    setActiveLabel(source.label);
    // The reader scrolls itself to the cited fragment and marks the supporting sentences.
    onCite(source.index, claim);
  };

  const engineBox = useRef<HTMLDivElement>(null);
  const narrow = useNarrowScreen();
  const fold = useEngineFold(engine.problem === null, run?.id ?? 0);
  /** The one-line offer: switch to that kind of engine and put the cursor where it needs input. */
  const openEngine = (kind: 'wllama' | 'openai') => {
    if (
      engine.settings.kind !== kind &&
      !(kind === 'openai' && isApiEngine(engine.settings.kind))
    ) {
      engine.changeSettings({ ...engine.settings, kind });
    }
    fold.reveal();
    requestAnimationFrame(() => {
      const box = engineBox.current;
      box?.scrollIntoView({ block: 'start', behavior: 'smooth' });
      const field = box?.querySelector<HTMLInputElement>(
        kind === 'openai' ? 'input[type="password"], input[id$="-key"]' : 'input[id$="-url"]',
      );
      field?.focus({ preventScroll: true });
    });
  };

  /**
   * One click: the recommended local model, downloaded and loaded in the ONNX engine, which reads
   * a prompt several times faster than wllama with the same weights (BENCHMARKS.md, "The ONNX
   * engine"); "another model" opens wllama's GGUF catalogue (smaller downloads).
   */
  const useRecommended = () => {
    const { settings } = engine;
    engine.setGgufFile(null);
    const onnx = { ...settings.onnx, modelId: RECOMMENDED_ONNX_MODEL.id };
    engine.changeSettings({ ...settings, kind: 'onnx', onnx });
    const source = localSourceOf('onnx', { ...settings, onnx: { ...onnx, hub: engine.hub } }, null);
    if (source) void engine.local.load(source);
    engineBox.current?.scrollIntoView({ block: 'start', behavior: 'smooth' });
  };

  const copy = async () => {
    if (!run) return;
    try {
      // Markdown with each citation resolved to its place in the book.
      await navigator.clipboard.writeText(
        answerMarkdownForCopy(run.text, run.prompt?.sources ?? []),
      );
      setCopied('copied');
    } catch {
      setCopied('failed');
    }
  };

  const runText = run?.text ?? '';
  const runSources = run?.prompt?.sources.length ?? 0;
  const cited = useMemo(() => new Set(citedLabels(runText, runSources)), [runText, runSources]);
  // An answer that cites nothing still shows where its sentences come from, marked as inferred.
  const runPrompt = run?.prompt ?? null;
  const inferred = useMemo(() => {
    if (busy || cited.size > 0 || !runText.trim() || !runPrompt || !fragments) return [];
    const textOf = new Map(fragments.map((f) => [f.index, f.text]));
    const excerpts = runPrompt.sources.flatMap((s) => {
      const text = textOf.get(s.index);
      return text === undefined ? [] : [{ label: s.label, text }];
    });
    return inferCitations(runText, excerpts).map((c) => ({
      label: c.label,
      claim: runText.slice(c.claim.start, c.claim.end),
    }));
  }, [busy, cited, runText, runPrompt, fragments]);

  return (
    <section
      className="answer"
      aria-labelledby="answer-title"
      data-testid="answer-panel"
      data-state={run?.status ?? 'idle'}
    >
      <h2 id="answer-title" className="card__title">
        Answer
      </h2>
      {engine.problem !== null && (
        <p className="engine-offer" data-testid="engine-offer">
          No answer engine is set up yet: you get the passages, not a written answer.{' '}
          <button type="button" className="link" onClick={useRecommended}>
            Use {RECOMMENDED_ONNX_MODEL.label} in this browser (up to{' '}
            {RECOMMENDED_ONNX_MODEL.downloadMB} MB download)
          </button>
          ,{' '}
          <button type="button" className="link" onClick={() => openEngine('wllama')}>
            another model
          </button>{' '}
          or{' '}
          <button type="button" className="link" onClick={() => openEngine('openai')}>
            use an API key
          </button>
          .
        </p>
      )}
      <div className="answer__actions">
        <button
          type="button"
          className="primary"
          onClick={() => void answer()}
          disabled={busy || blocker !== null}
        >
          Answer
        </button>
        {busy && (
          <button type="button" onClick={stop}>
            Stop
          </button>
        )}
        {run && !busy && (
          <button type="button" onClick={() => void answer()} disabled={blocker !== null}>
            Regenerate
          </button>
        )}
        {run && run.text && !busy && (
          <button type="button" onClick={() => void copy()}>
            Copy
          </button>
        )}
        {copied && (
          <span role="status" className="stats" data-testid="copy-status">
            {copied === 'copied' ? 'Copied the answer.' : 'Could not copy: the browser refused.'}
          </span>
        )}
      </div>
      {blocker && !busy && (
        <p className="engine__hint" data-testid="answer-blocker">
          {blocker}
        </p>
      )}
      {!busy && kept && (
        <p className="engine__hint" data-testid="answer-kept-model">
          {kept} is kept in this browser: asking loads it from there (no download) and answers.
        </p>
      )}
      {run && (
        <div className="answer__run">
          <p className="answer__question" data-testid="answer-question">
            Question: “{run.question}”
          </p>
          <p className="stats" role="status" data-testid="answer-status">
            {STATUS_TEXT[run.status]}
            {run.engineLabel && ` · ${run.engineLabel}`}
            {run.stats &&
              (run.status === 'done' || run.status === 'stopped') &&
              statsText(run.stats)}
            {run.finish === 'length' && ' · stopped at the answer length limit'}
          </p>
          {(run.text || run.status === 'streaming') && (
            <div
              className="answer__text"
              data-testid="answer-text"
              aria-live="polite"
              aria-busy={run.status === 'streaming'}
              data-tokens-per-second={run.stats?.tokensPerSecond?.toFixed(1) ?? ''}
              data-prompt-tokens-per-second={run.stats?.promptTokensPerSecond?.toFixed(1) ?? ''}
              data-prompt-tokens={run.stats?.promptTokens ?? ''}
              data-reused-prompt-tokens={run.stats?.cachedPromptTokens ?? ''}
            >
              <MarkdownAnswer text={run.text} sources={run.prompt?.sources ?? null} onCite={cite} />
            </div>
          )}
          {run.error && <ErrorBox error={run.error} testId="answer-error" />}
          {run.prompt && (
            <>
              <AnswerSources
                sources={run.prompt.sources}
                cited={cited}
                inferred={inferred}
                activeLabel={activeLabel}
                writing={busy}
                onOpen={(s, claim) => cite(s, claim)}
              />
              {run.reading && (
                <ReadingBudgetLine
                  used={run.reading.budget}
                  next={readingBudget({
                    promptTokensPerSecond: measuredSpeed(run.reading.model, run.reading.kind)
                      ?.promptTokensPerSecond,
                    contextLimit: engine.contextLimit,
                    answerTokens: Math.min(
                      engine.settings.answerTokens,
                      Math.floor(engine.contextLimit / 2),
                    ),
                    scale: engine.settings.passageScale,
                  })}
                  model={run.reading.model}
                  onScale={(passageScale) =>
                    engine.changeSettings({ ...engine.settings, passageScale })
                  }
                />
              )}
              <PromptDetails prompt={run.prompt} exact={run.exactCounts} />
            </>
          )}
        </div>
      )}
      <div className="answer__engine" ref={engineBox}>
        <EngineFold
          narrow={narrow}
          open={fold.open}
          onToggle={fold.toggle}
          summary={engineSummary(engine.settings)}
        >
          <SharedEngineSettings busy={busy} />
        </EngineFold>
      </div>
    </section>
  );
}

function statsText(stats: GenerateStats): string {
  const parts: string[] = [];
  if (stats.completionTokens) parts.push(`${stats.completionTokens.toLocaleString('en')} tokens`);
  if (stats.tokensPerSecond) parts.push(`${stats.tokensPerSecond.toFixed(1)} tokens/s`);
  if (stats.promptTokensPerSecond)
    parts.push(`prompt read at ${stats.promptTokensPerSecond.toFixed(0)} tokens/s`);
  // A prompt the engine had already read (counting it, or an earlier call with the same start).
  if (stats.cachedPromptTokens)
    parts.push(`${stats.cachedPromptTokens.toLocaleString('en')} prompt tokens reused`);
  parts.push(`${(stats.elapsedMs / 1000).toFixed(1)} s`);
  return ` · ${parts.join(', ')}`;
}
