import { describe, expect, it } from 'vitest';
import { defaultSegmentSettings, segmentPipeline } from '../../core/pipelines/segment';
import { fakeLlm, libraryOf, testSignal } from '../../core/pipelines/testing';
import { emptyAnswerEnds } from './run';

const QUESTION = 'Which city was the inventor born in?';
const TEXT = Array.from(
  { length: 4 },
  (_, i) => `Paragraph ${i} says the inventor number ${i} was born in city ${i}.`,
).join('\n\n');

/** SEGMENT+ on the scripted model, its answer call replying `answer`. */
async function segmentRun(answer: string) {
  const llm = fakeLlm({
    script: {
      'segment.note': JSON.stringify({ Evidence: 'born in city 0', Reasoning: 'A birthplace.' }),
      'segment.judge': 'Keep',
      'segment.merge': JSON.stringify({ Evidence: 'born in city 0', Reasoning: 'Merged.' }),
      'segment.answer': answer,
    },
  });
  return segmentPipeline({
    question: QUESTION,
    library: libraryOf([{ name: 'a.txt', text: TEXT }], QUESTION),
    llm,
    settings: defaultSegmentSettings,
    signal: testSignal().signal,
    clock: llm.clock,
  });
}

describe('a pipeline run on the page', () => {
  it('ends with "The pipeline gave no answer" when its answer is empty, the trace kept', async () => {
    const out = await segmentRun(' \n ');
    expect(out.status).toBe('done');
    const shown = emptyAnswerEnds(out);
    expect(shown.status).toBe('error');
    expect(shown.error).toMatchObject({ code: 'engine', message: 'The pipeline gave no answer.' });
    expect(shown.error!.detail).toContain('segment.answer');
    expect(shown.error!.detail).toContain('an empty reply');
    // The whole trace is still there to read.
    expect(shown.trace).toBe(out.trace);
    expect(shown.trace.calls.at(-1)!.tag).toBe('segment.answer');
  });

  it('leaves a run with an answer, or one already stopped or failed, as it was', async () => {
    const out = await segmentRun('City 0 [1].');
    expect(emptyAnswerEnds(out)).toBe(out);
    const stopped = { ...out, status: 'stopped' as const, answer: '' };
    expect(emptyAnswerEnds(stopped)).toBe(stopped);
  });
});
