/**
 * @file FragRel's answer path as a pipeline: the fragments FragRel selected (Eq. 11) go to one
 * LLM call with the story prompt (src/core/prompt.ts), fitted to the engine's context exactly as
 * the answer panel fitted it (the engine's `fitPrompt`, src/llm/fit.ts). One call per question.
 */
import { storyQaPrompt, type Prompt, type PromptFragment } from '../../prompt';
import { fragmentLocation, fragmentText, preview } from '../library';
import { PipelineHalt, runTraced, TraceRecorder } from '../trace';
import type { Pipeline, PipelineInput } from '../types';

export interface FragRelPipelineSettings {
  /** Tokens reserved for the answer; never more than half the window (the excerpts need room). */
  answerTokens: number;
  temperature?: number;
}

export const defaultFragRelPipelineSettings: FragRelPipelineSettings = { answerTokens: 512 };

/** The selected fragments as the story prompt takes them: document order, with their ranks. */
export function selectedPromptFragments(input: PipelineInput<unknown>): PromptFragment[] {
  const { library } = input;
  const selection = library.selection ?? { indices: [], ranked: [] };
  const rankOf = new Map<number, number>();
  selection.ranked.forEach((index, rank) => rankOf.set(index, rank));
  return selection.indices.map((index, i) => ({
    index,
    rank: rankOf.get(index) ?? i,
    location: fragmentLocation(library, index),
    text: fragmentText(library, index),
  }));
}

export const fragrelPipeline: Pipeline<FragRelPipelineSettings> = async (input) => {
  const settings = { ...defaultFragRelPipelineSettings, ...input.settings };
  const rec = new TraceRecorder('fragrel', input, { ...settings });
  const { llm, library } = input;
  return runTraced(rec, async () => {
    const select = rec.step('fragrel.select', 'Fragments FragRel selected (Eq. 11)', {
      fragments: library.fragments.length,
      scorer: library.scorer,
    });
    const fragments = selectedPromptFragments(input);
    for (const f of fragments) {
      rec.item({
        id: `fragment:${f.index}`,
        kind: 'fragment',
        stepId: select.id,
        label: f.location,
        text: preview(f.text),
        fragments: [f.index],
        scores: {
          independent: library.independent[f.index],
          ...(library.final ? { final: library.final[f.index] } : {}),
        },
        rank: f.rank,
        verdict: 'kept',
        reason: 'selected within the context budget',
      });
    }
    select.done({ selected: fragments.length });

    const fit = rec.step('fragrel.fit', "Fit the prompt to the engine's context");
    const answerTokens = Math.min(settings.answerTokens, Math.floor(llm.contextLimit / 2));
    rec.size({
      name: 'answer tokens',
      value: answerTokens,
      unit: 'tokens',
      why: `min(setting ${settings.answerTokens}, half the ${llm.contextLimit}-token context)`,
    });
    const fitted = await llm.fitPrompt(
      (budget) => storyQaPrompt({ question: input.question, fragments }, budget),
      answerTokens,
      rec.signal,
    );
    rec.throwIfStopped();
    if (!fitted.ok) {
      fit.note(fitted.reason);
      throw new PipelineHalt({ code: 'context-length', message: fitted.reason });
    }
    const prompt: Prompt = fitted.prompt;
    for (const d of prompt.dropped) {
      const item = rec.trace.items.find((i) => i.id === `fragment:${d.index}`);
      if (item) {
        item.verdict = 'dropped';
        item.reason = 'left out to fit the context (lowest rank first)';
      }
    }
    rec.size({
      name: 'prompt',
      value: prompt.tokens,
      unit: 'tokens',
      why: `limit ${prompt.limit} = context ${llm.contextLimit} - answer ${answerTokens}`,
    });
    fit.done({
      tokens: prompt.tokens,
      dropped: prompt.dropped.length,
      truncated: prompt.truncated.length,
    });

    const answer = rec.step('fragrel.answer', 'Answer from the excerpts');
    const { text } = await rec.call(answer, {
      tag: 'fragrel.answer',
      messages: prompt.messages,
      text: prompt.text,
      maxTokens: Math.max(16, Math.min(answerTokens, llm.contextLimit - prompt.tokens)),
      temperature: settings.temperature,
      onToken: input.onAnswerToken,
    });
    answer.done({ chars: text.length });
    return {
      answer: text,
      citations: prompt.sources.map((s) => ({
        label: s.label,
        index: s.index,
        location: s.location,
      })),
    };
  });
};
