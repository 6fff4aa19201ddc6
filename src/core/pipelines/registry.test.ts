import { describe, expect, it } from 'vitest';
import { glovePipelineEmbedder } from '../../../test/glove';
import { COMPARE_PIPELINES, COMPARE_PIPELINE_NAMES, COMPARE_SUMMARIES } from '../compare';
import { fragmentsUsed } from '../compare/usage';
import {
  defaultPipelineSettings,
  PIPELINE_IDS,
  PIPELINES,
  pipelineName,
  runPipeline,
} from './registry';
import { fakeLlm, libraryOf, testSignal } from './testing';

const glove = glovePipelineEmbedder();

const QUESTION = 'Which ship did Mara sail to the northern islands?';
const STORY = [
  'Mara grew up in a fishing town and learned to read the tides from her uncle.',
  'In her twentieth summer Mara sailed the schooner Gull to the northern islands.',
  'The Gull came back in autumn with a hold full of dried cod and seal skins.',
  'Her uncle never left the harbour again after the storm of that winter.',
].join('\n\n');

function library() {
  const lib = libraryOf([{ name: 'story.txt', text: STORY }], QUESTION);
  lib.selection = { indices: [1, 2], ranked: [2, 1] };
  return lib;
}

describe('the answer-pipeline table', () => {
  it.each(PIPELINE_IDS)('%s: has every part', (id) => {
    const entry = PIPELINES[id];
    for (const text of [entry.name, entry.summary, entry.compareSummary])
      expect(text.trim().length).toBeGreaterThan(3);
    expect(typeof entry.defaults).toBe('object');
    expect(defaultPipelineSettings[id]).toBe(entry.defaults);
    expect(typeof entry.helpers.reranker).toBe('boolean');
    expect(typeof entry.helpers.embedder).toBe('boolean');
    expect(typeof entry.estimateIsFloor).toBe('boolean');
    expect(pipelineName(id)).toBe(entry.name);
  });

  it.each(PIPELINE_IDS)(
    '%s: its runner answers, and its usage rule reads the fragments of the answer',
    async (id) => {
      const lib = library();
      const out = await runPipeline(
        id,
        {
          question: QUESTION,
          library: lib,
          llm: fakeLlm({
            fallback: 'The schooner Gull [2].',
            contextLimit: 4096,
            // SEGMENT+ answers from the notes its judge keeps.
            script: {
              'segment.note': JSON.stringify({
                Evidence: 'She sailed the Gull.',
                Reasoning: 'It names it.',
              }),
              'segment.judge': 'Keep',
            },
          }),
          signal: testSignal().signal,
          embedder: glove,
        },
        defaultPipelineSettings,
      );
      expect(out.error).toBeUndefined();
      expect(out.status).toBe('done');
      expect(out.trace.calls.length).toBeGreaterThan(0);
      const used = fragmentsUsed(id, out);
      expect(used.length).toBeGreaterThan(0);
      for (const f of used) expect(f).toBeLessThan(lib.fragments.length);
    },
  );

  it('hands a helper model only to the pipelines that take it', async () => {
    const needing = PIPELINE_IDS.filter((id) => PIPELINES[id].helpers.embedder);
    expect(needing).toEqual(['qrmem']);
    // Without the embedder the one that needs it says so; with it, it runs (above).
    const out = await runPipeline(
      'qrmem',
      {
        question: QUESTION,
        library: library(),
        llm: fakeLlm({ fallback: 'A', contextLimit: 4096 }),
        signal: testSignal().signal,
      },
      defaultPipelineSettings,
    );
    expect(out.status).toBe('error');
    expect(out.error!.detail).toContain('embedder');
  });

  it('gives Compare every pipeline and the plain-retrieval baseline after FragRel', () => {
    expect(COMPARE_PIPELINES).toEqual(['fragrel', 'plain', 'longrag', 'segment', 'qrmem']);
    for (const p of COMPARE_PIPELINES) {
      expect(COMPARE_PIPELINE_NAMES[p].length).toBeGreaterThan(3);
      expect(COMPARE_SUMMARIES[p].length).toBeGreaterThan(3);
    }
    expect(pipelineName('an-old-id')).toBe('an-old-id');
  });
});
