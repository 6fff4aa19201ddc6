/**
 * @file Two retrieval workers behind one caller: questions and re-ranks in one, the graph
 * neighbourhood of a window (`explainWindow`) in another. Explaining a window parses and graphs
 * the whole repository again (a million lines: about 20 s of one thread, the graph built in one
 * synchronous step), so in the same worker every slider move asked meanwhile waited behind it.
 * The second worker starts on the first explanation; `forget` goes to both.
 */
import type { Caller, CallOptions } from './client';
import type { WorkerApi } from './protocol';
import type { RetrievalApi } from './retrieval.worker';

export interface Terminable<Api extends WorkerApi<Api>> extends Caller<Api> {
  terminate(): void;
}

export class ExplainRoute implements Terminable<RetrievalApi> {
  private explainer: Terminable<RetrievalApi> | null = null;

  constructor(
    private readonly retrieval: Terminable<RetrievalApi>,
    private readonly startExplainer: () => Terminable<RetrievalApi>,
  ) {}

  call<K extends keyof RetrievalApi & string>(
    kind: K,
    payload: RetrievalApi[K]['payload'],
    options?: CallOptions,
  ): Promise<RetrievalApi[K]['result']> {
    if (kind === 'explainWindow') {
      this.explainer ??= this.startExplainer();
      return this.explainer.call(kind, payload, options);
    }
    if (kind === 'forget' && this.explainer) {
      const explainer = this.explainer.call(kind, payload, options);
      return Promise.all([this.retrieval.call(kind, payload, options), explainer]).then(
        ([answer]) => answer,
      );
    }
    return this.retrieval.call(kind, payload, options);
  }

  terminate(): void {
    this.retrieval.terminate();
    this.explainer?.terminate();
    this.explainer = null;
  }
}
