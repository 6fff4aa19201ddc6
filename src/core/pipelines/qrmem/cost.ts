/**
 * @file QRMeM's cost split by phase: what building the memory cost against what
 * navigating it cost, and within construction, what does not depend on the question (segments,
 * named entities, the summary: cached per document and reused by the next question) against
 * what does (entities, relations and fusions per query, and the generated questions).
 *
 * Read from the trace alone (each QRMeM step carries `phase` and `dependsOnQuestion` in its
 * input), so any view or benchmark that has a trace can show it.
 */
import type { Trace } from '../types';

export type QrmemPhase = 'construction-independent' | 'construction-dependent' | 'navigation';

export interface PhaseCost {
  /** LLM calls made by the phase's steps (every attempt of a retried parse counts). */
  calls: number;
  tokensIn: number;
  tokensOut: number;
  /** Wall time of the phase: the sum of its steps' durations (they run one after another). */
  ms: number;
  /** The steps of the phase, in trace order. */
  steps: string[];
}

export interface QrmemCost {
  constructionIndependent: PhaseCost;
  constructionDependent: PhaseCost;
  /** Both construction parts together. */
  construction: PhaseCost;
  navigation: PhaseCost;
}

/** The phase a step belongs to, from its input; null for a step that is not QRMeM's. */
export function phaseOfStep(input: Record<string, unknown> | undefined): QrmemPhase | null {
  if (input?.phase === 'navigation') return 'navigation';
  if (input?.phase === 'construction')
    return input.dependsOnQuestion === false
      ? 'construction-independent'
      : 'construction-dependent';
  return null;
}

const empty = (): PhaseCost => ({ calls: 0, tokensIn: 0, tokensOut: 0, ms: 0, steps: [] });

function add(into: PhaseCost, from: PhaseCost): void {
  into.calls += from.calls;
  into.tokensIn += from.tokensIn;
  into.tokensOut += from.tokensOut;
  into.ms += from.ms;
  into.steps.push(...from.steps);
}

/** QRMeM's cost by phase, from its trace (a step still running counts up to its last call). */
export function qrmemCost(trace: Trace): QrmemCost {
  const byPhase: Record<QrmemPhase, PhaseCost> = {
    'construction-independent': empty(),
    'construction-dependent': empty(),
    navigation: empty(),
  };
  const phaseOf = new Map<string, QrmemPhase>();
  for (const step of trace.steps) {
    const phase = phaseOfStep(step.input);
    if (!phase) continue;
    phaseOf.set(step.id, phase);
    const cost = byPhase[phase];
    cost.steps.push(step.id);
    const lastCallEnd = Math.max(
      step.startMs,
      ...trace.calls.filter((c) => c.stepId === step.id).map((c) => c.endMs ?? step.startMs),
    );
    cost.ms += (step.endMs ?? lastCallEnd) - step.startMs;
  }
  for (const call of trace.calls) {
    const phase = phaseOf.get(call.stepId);
    if (!phase) continue;
    const cost = byPhase[phase];
    cost.calls++;
    cost.tokensIn += call.tokensIn;
    cost.tokensOut += call.tokensOut;
  }
  const construction = empty();
  add(construction, byPhase['construction-independent']);
  add(construction, byPhase['construction-dependent']);
  return {
    constructionIndependent: byPhase['construction-independent'],
    constructionDependent: byPhase['construction-dependent'],
    construction,
    navigation: byPhase.navigation,
  };
}
