/**
 * @file QRMeM (Wang et al. 2024, "Question then Reflection Memory Mechanism") as an answer
 * pipeline, after PIPELINES.md section 3: two memories of the library (its segments, and an
 * entity graph whose edges carry relation descriptions written by the LLM), built for the
 * question, then navigated: Entity Trial (TE), Graph Expansion Search (GES), or QRMeM proper
 * (KN: reflection rounds that pick the next entity by the similarity of its edge's description
 * to the question, the model's reason for failing and the entities at hand).
 *
 * Construction (build.ts) steps are `qrmem.build.*`, with `phase: 'construction'` and whether
 * they depend on the question in their input; navigation (navigate.ts) steps are
 * `qrmem.navigate.*` (`phase: 'navigation'`). This file sizes the run, calls both and assembles
 * the trace's graph and citations. Every decision PIPELINES.md leaves open is a setting or written in
 * docs/pipelines.md (QRMeM section).
 *
 * Calls per question (3.5): S summary + 1 question generation + per query (q and each pooled
 * question) up to K entity calls and K relation calls (a segment's relations are asked again
 * only when its entity set grew) + M fusions; then 1 question-entity call + T judges + at most 1
 * answer (GES: 1 elaboration + 1 answer). Each parse failure adds a retry (at most 4 per call).
 */
import { inputBudget } from '../budget';
import { fragmentLocation, preview } from '../library';
import { runTraced, TraceRecorder } from '../trace';
import type { Pipeline, PipelineCitation, PipelineEmbedder, TraceGraph } from '../types';
import { buildMemory } from './build';
import { EntityGraph } from './entities';
import { navigate } from './navigate';
import type { RetrySchedule } from './parse';
import { entitiesPrompt, judgePrompt } from './prompts';
import { round4, type QrmemRun } from './run';
import { defaultQrmemSettings, type QrmemSettings } from './settings';

export { dedupQuestions, rougeL } from './rouge';
export {
  defaultQrmemSettings,
  type QrmemRound,
  type QrmemSettings,
  type QrmemVariant,
} from './settings';
export { EntityGraph, entityKey, nerEntities } from './entities';

const dot = (a: Float32Array, b: Float32Array) => {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
};

export const qrmemPipeline: Pipeline<QrmemSettings> = async (input) => {
  const settings = { ...defaultQrmemSettings, ...input.settings };
  const rec = new TraceRecorder('qrmem', input, { ...settings });
  const { llm, library } = input;
  const count = (t: string) => llm.countTokens(t, rec.signal);
  const schedule: RetrySchedule = { maxRetries: settings.maxRetries, first: 0, retry: 0.7 };
  const C = llm.contextLimit;
  const question = input.question;

  return runTraced(rec, async () => {
    const embedder: PipelineEmbedder | undefined = input.embedder;
    if (!embedder)
      throw new Error('QRMeM needs the library embedder for edge similarity; none was given.');
    const similarity = async (query: string, texts: readonly string[]): Promise<number[]> => {
      if (!texts.length) return [];
      const [q] = await embedder.embed([query], 'query', rec.signal);
      const rows = await embedder.embed(texts, 'passage', rec.signal);
      return rows.map((r) => dot(q, r));
    };

    // Sizes (PIPELINES.md section 8).
    const extractFrame = await count(entitiesPrompt('', question));
    const segmentTokens = Math.min(
      settings.segmentTokens || (C >= 4096 ? 600 : 300),
      inputBudget(llm, settings.extractTokens) - extractFrame - settings.margin,
    );
    rec.size({
      name: 'segment size',
      value: segmentTokens,
      unit: 'tokens',
      why: settings.segmentTokens
        ? 'set in the settings'
        : `the paper's 600 at a window of 4,096 or more, 300 below (context ${C})`,
    });
    const judgeFrame = await count(
      judgePrompt([], question, settings.variant === 'te' ? [] : undefined),
    );
    const windowBudget = inputBudget(llm, settings.judgeTokens) - judgeFrame - settings.margin;
    rec.size({
      name: 'window for segments (S_imp + S_c)',
      value: windowBudget,
      unit: 'tokens',
      why: `context ${C} - judge prompt ${judgeFrame} - judge output ${settings.judgeTokens} - template - margin ${settings.margin}`,
    });

    const run: QrmemRun = { input, rec, settings, schedule, count, similarity };
    const { segments, graph } = await buildMemory(run, segmentTokens);
    const {
      start: E0,
      important: Simp,
      path,
      rounds,
      scoredEdges,
      context,
      answer,
      stopReason,
    } = await navigate(run, { segments, graph }, windowBudget);

    // The graph payload: every entity and relation, the navigated part marked.
    const onPath = new Set(path);
    const start = new Set(E0);
    const payload: TraceGraph = {
      kind: 'entity-graph',
      nodes: [...graph.entities.values()].map((e) => ({
        id: `entity:${e.key}`,
        label: e.name,
        group: start.has(e.key) ? 'start' : onPath.has(e.key) ? 'path' : 'other',
      })),
      edges: [...graph.relations.values()].map((r) => {
        const w = scoredEdges.get(EntityGraph.pairKey(r.head, r.tail));
        return {
          from: `entity:${r.head}`,
          to: `entity:${r.tail}`,
          label: r.text,
          ...(w !== undefined ? { weight: round4(w) } : {}),
        };
      }),
    };
    rec.graph(payload);
    const last = rec.trace.steps.at(-1)!;
    last.output = {
      ...last.output,
      path,
      stop: stopReason,
      rounds,
      answerSegments: context.map((s) => s + 1),
    };
    context.forEach((s, i) =>
      rec.item({
        id: `answer-segment:${s}`,
        kind: 'segment',
        stepId: last.id,
        label: `[${i + 1}] segment ${s + 1}`,
        text: preview(segments[s].text),
        fragments: segments[s].fragments,
        rank: i,
        verdict: 'kept',
        reason: Simp.includes(s) ? "in S_imp (the question's entities)" : 'added by navigation',
      }),
    );
    const citations: PipelineCitation[] = context.map((s, i) => ({
      label: i + 1,
      index: segments[s].fragments[0],
      location: fragmentLocation(library, segments[s].fragments[0]),
    }));
    return { answer, citations };
  });
};
