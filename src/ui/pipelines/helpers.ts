/**
 * @file What a view needs to run pipelines besides the engine: the question's library, and the
 * helper models a pipeline takes besides the LLM (the core table's `helpers`): the
 * cross-encoder the person names for reranking, and the library's embedder. Loaded here once for
 * the pipelines panel, Compare and the evaluation page, with the same messages when one fails.
 */
import { useMemo, useState } from 'react';
import { PIPELINES, type PipelineId } from '../../core/pipelines/registry';
import type {
  PipelineEmbedder,
  PipelineLibrary,
  PipelineReranker,
} from '../../core/pipelines/types';
import type { TextKind } from '../../core/types';
import type { LlmError } from '../../llm/types';
import { loadCrossEncoder } from '../../models/cross-encoder';
import type { EmbedderSpec } from '../../models/embedder';
import type { RetrievalResult } from '../../workers/retrieval-types';
import { pipelineEmbedder } from '../qrmem/embedder';
import { pipelineLibraryOf } from './library';

/** The cross-encoder the person chose ('' for none), and where it is downloaded from. */
export interface RerankerChoice {
  id: string;
  setId: (id: string) => void;
  /** '' = the library's hub host; a mirror in the hub's layout works too. */
  host: string;
  /** Absent where the page offers no host field (it then uses the library's hub host). */
  setHost?: (host: string) => void;
  /** The library's hub host, shown as the host field's hint. */
  defaultHost?: string;
}

/** The reranker fields' state; `withHost` offers a hub field of its own. */
export function useRerankerChoice(withHost: boolean, defaultHost?: string): RerankerChoice {
  const [id, setId] = useState('');
  const [host, setHost] = useState('');
  return useMemo(
    () => ({
      id,
      setId,
      host,
      ...(withHost ? { setHost } : {}),
      ...(defaultHost ? { defaultHost } : {}),
    }),
    [id, host, withHost, defaultHost],
  );
}

/** The question's library as the pipelines read it, kept while the result and the texts stay. */
export function usePipelineLibrary({
  result,
  sources,
  kindOf,
}: {
  result: RetrievalResult | null;
  sources: ReadonlyMap<string, string>;
  kindOf?: ((docId: string) => TextKind) | undefined;
}): PipelineLibrary | null {
  return useMemo(
    () => (result ? pipelineLibraryOf(result, sources, kindOf) : null),
    [result, sources, kindOf],
  );
}

export interface PipelineHelpers {
  reranker?: PipelineReranker;
  embedder?: PipelineEmbedder;
}

export interface HelperRequest {
  /** The cross-encoder's hub id, '' for none (the pipelines then rerank by retrieval score). */
  rerankerId: string;
  /** Where it is downloaded from; the library's hub host when absent. */
  host?: string;
  /** The library's embedder; the offline GloVe vectors when absent. */
  embedder?: EmbedderSpec;
}

export type HelpersResult = { ok: true; helpers: PipelineHelpers } | { ok: false; error: LlmError };

/**
 * Loads the helpers of `pipelines`. A loaded cross-encoder is kept for the next runs, by host
 * and id; the embedder is the library's (its loader keeps it).
 */
export class HelperModels {
  private reranker: { key: string; model: PipelineReranker } | null = null;

  async load(
    pipelines: readonly PipelineId[],
    request: HelperRequest,
    signal: AbortSignal,
  ): Promise<HelpersResult> {
    const helpers: PipelineHelpers = {};
    const takes = (helper: 'reranker' | 'embedder') =>
      pipelines.filter((id) => PIPELINES[id].helpers[helper]);
    if (request.rerankerId && takes('reranker').length > 0) {
      const key = `${request.host ?? ''}|${request.rerankerId}`;
      if (this.reranker?.key !== key) {
        try {
          const model = await loadCrossEncoder(request.rerankerId, request.host, signal);
          this.reranker = { key, model };
        } catch (e) {
          return failed(
            `The cross-encoder ${request.rerankerId} could not be loaded. Check its id, or clear the field to rerank by the retrieval score.`,
            e,
          );
        }
      }
      helpers.reranker = this.reranker.model;
    }
    const needEmbedder = takes('embedder');
    if (needEmbedder.length > 0) {
      try {
        helpers.embedder = await pipelineEmbedder(request.embedder, signal);
      } catch (e) {
        const names = needEmbedder.map((id) => PIPELINES[id].name).join(' and ');
        return failed(
          `${request.embedder ? "The library's" : 'The offline GloVe'} embedder could not be loaded, and ${names} needs it for the similarity of edges.`,
          e,
        );
      }
    }
    return { ok: true, helpers };
  }
}

function failed(message: string, e: unknown): HelpersResult {
  return { ok: false, error: { code: 'model-load', message, detail: (e as Error).message } };
}

export interface PageHelpers {
  /** The cross-encoder fields' state. */
  reranker: RerankerChoice;
  /** The loader, kept for the component's life (its cross-encoder kept between runs). */
  models: HelperModels;
  /** The helpers of `pipelines` as the page's fields and library name them. */
  load(pipelines: readonly PipelineId[], signal: AbortSignal): Promise<HelpersResult>;
}

/**
 * A view's helper models: the cross-encoder it names (from `hubHost` unless its own hub field,
 * `withHost`, says otherwise) and the library's embedder.
 */
export function usePipelineHelpers(
  withHost: boolean,
  hubHost?: string,
  embedder?: EmbedderSpec,
): PageHelpers {
  const reranker = useRerankerChoice(withHost, hubHost);
  const [models] = useState(() => new HelperModels());
  return useMemo(() => {
    const host = reranker.host || hubHost;
    const request: HelperRequest = {
      rerankerId: reranker.id,
      ...(host ? { host } : {}),
      ...(embedder ? { embedder } : {}),
    };
    return {
      reranker,
      models,
      load: (pipelines, signal) => models.load(pipelines, request, signal),
    };
  }, [reranker, models, hubHost, embedder]);
}
