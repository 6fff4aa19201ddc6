/**
 * @file A code completion with the workspace's engine (useEngine): the retrieved windows as
 * comment blocks labelled with their file and lines, then the current file up to the cursor
 * (RepoCoder's layout, core/prompt.ts codeCompletionPrompt), fitted to the model's context
 * window (the lowest-ranked windows go first), streamed back token by token.
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import { codeCompletionPrompt, type PromptFragment } from '../../core/prompt';
import {
  fitAndGenerate,
  NOTHING_YET,
  settledRun,
  streamInto,
  type GenerationRun,
} from '../answer/generate';
import type { LlmError } from '../../llm/types';
import type { CompletionCursor } from '../../workers/retrieval-types';
import { useEngine } from '../answer/useEngine';

export type CompletionStatus =
  'retrieving' | 'preparing' | 'loading' | 'streaming' | 'done' | 'stopped' | 'error';

export interface CompletionRun extends GenerationRun<CompletionStatus> {
  cursor: CompletionCursor;
}

export interface CompletionInput {
  /** The retrieved windows (cursor windows already left out), in document order. */
  fragments: PromptFragment[];
  path: string;
  textBeforeCursor: string;
}

/** Most tokens a completion may take (a completion is a few lines, not an essay). */
const MAX_COMPLETION_TOKENS = 256;

export function useCompletion() {
  const engine = useEngine();
  const [run, setRun] = useState<CompletionRun | null>(null);
  const abort = useRef<AbortController | null>(null);
  const runId = useRef(0);

  useEffect(() => () => abort.current?.abort(), []);

  /** A new completion at `cursor`: shown as retrieving until `complete` is called. */
  const begin = useCallback((cursor: CompletionCursor): AbortSignal => {
    abort.current?.abort();
    const controller = new AbortController();
    abort.current = controller;
    const id = ++runId.current;
    setRun({ id, cursor, status: 'retrieving', ...NOTHING_YET });
    return controller.signal;
  }, []);

  const fail = useCallback((error: LlmError) => {
    setRun((r) =>
      r ? { ...r, status: error.code === 'aborted' ? 'stopped' : 'error', error } : r,
    );
  }, []);

  /** Build the prompt for the retrieved windows and stream the engine's completion. */
  const complete = useCallback(
    async (input: CompletionInput) => {
      const controller = abort.current;
      if (!controller) return;
      const id = runId.current;
      const update = (patch: Partial<CompletionRun>) =>
        setRun((r) => (r && r.id === id ? { ...r, ...patch } : r));
      const failWith = (error: LlmError) =>
        update({ status: error.code === 'aborted' ? 'stopped' : 'error', error });

      update({ status: 'preparing' });
      const acquired = await engine.acquire(controller.signal, () => update({ status: 'loading' }));
      if (!('generate' in acquired)) return failWith(acquired);
      const llm = acquired;
      if (controller.signal.aborted) return failWith({ code: 'aborted', message: 'Stopped.' });
      update({ status: 'preparing', engineLabel: llm.label });
      const answerTokens = Math.min(
        engine.settings.answerTokens,
        MAX_COMPLETION_TOKENS,
        Math.floor(llm.contextLimit / 2),
      );
      const generated = await fitAndGenerate(
        llm,
        (budget) =>
          codeCompletionPrompt(
            {
              fragments: input.fragments,
              currentFile: { path: input.path, textBeforeCursor: input.textBeforeCursor },
            },
            budget,
          ),
        {
          answerTokens,
          temperature: 0,
          signal: controller.signal,
          ...streamInto(llm, id, setRun),
        },
      );
      if (!generated.ok) return failWith(generated.error);
      const { outcome } = generated;
      if (abort.current === controller) abort.current = null;
      update(settledRun(outcome));
    },
    [engine],
  );

  const stop = useCallback(() => abort.current?.abort(), []);
  const clear = useCallback(() => {
    abort.current?.abort();
    setRun(null);
  }, []);

  return { run, begin, complete, fail, stop, clear, problem: engine.problem };
}
