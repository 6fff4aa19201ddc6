/**
 * @file Which fragments a pipeline's answer was built from, read from its output and trace.
 *
 * "Used" means: the fragment's text reached the final answer call, directly or through a model
 * output that did (a LongRAG extraction, a SEGMENT+ note). Each pipeline records this
 * differently in its trace (src/core/pipelines/<name>/index.ts), so each has its rule here:
 *
 * - FragRel and plain retrieval: the selected fragments the prompt kept (`fragment:*` items kept
 *   after fitting; fragments left out to fit the window are not used).
 * - LongRAG: the passages given to the generator (its citations; in R&L mode each citation
 *   stands for its paragraph, item `map:<hit>`), plus the paragraphs mapped for the extractor
 *   when it ran (its output I_g is in the generator's prompt). The trace does not say which of
 *   those paragraphs the extractor's input budget cut, so they all count (an overcount only when
 *   the step notes "paragraphs left out").
 * - SEGMENT+: the segments behind the notes given to the answer (the merge tree's edges into
 *   `answer`, whose items carry the fragments).
 * - QRMeM: the segments of the answer's context (`answer-segment:*` items).
 *
 * A run that did not reach its answer (stopped, failed) used nothing: its answer does not exist.
 */
import type { PipelineOutput, Trace, TraceItem } from '../pipelines/types';
import type { ComparePipelineId } from './types';

/** The fragment indices (run indices) a finished run's answer was built from, ascending. */
export function fragmentsUsed(
  pipeline: ComparePipelineId,
  output: Pick<PipelineOutput, 'status' | 'citations' | 'trace'>,
): number[] {
  if (output.status !== 'done') return [];
  const { trace } = output;
  const items = new Map<string, TraceItem>(trace.items.map((i) => [i.id, i]));
  const used = new Set<number>();
  const add = (item: TraceItem | undefined) => {
    for (const f of item?.fragments ?? []) used.add(f);
  };
  switch (pipeline) {
    case 'fragrel':
    case 'plain':
      for (const i of trace.items) if (i.kind === 'fragment' && i.verdict === 'kept') add(i);
      break;
    case 'longrag': {
      const mode = trace.settings.mode;
      for (const c of output.citations) {
        if (mode === 'R&L') add(items.get(`map:${c.index}`));
        else used.add(c.index);
      }
      if (extractorRan(trace))
        for (const i of trace.items) if (i.kind === 'paragraph' && i.verdict === 'kept') add(i);
      break;
    }
    case 'segment':
      for (const e of trace.graph?.edges ?? []) if (e.to === 'answer') add(items.get(e.from));
      break;
    case 'qrmem':
      for (const i of trace.items) if (i.id.startsWith('answer-segment:')) add(i);
      break;
  }
  // Any pipeline: what the answer cites was in its context.
  if (pipeline !== 'longrag' || trace.settings.mode !== 'R&L')
    for (const c of output.citations) used.add(c.index);
  return [...used].sort((a, b) => a - b);
}

function extractorRan(trace: Trace): boolean {
  return trace.calls.some((c) => c.tag === 'longrag.extractor' && c.status === 'ok');
}
