import { describe, expect, it } from 'vitest';
import { loadGloveFromDisk } from '../../../../test/glove';
import { embedTexts } from '../../embed/static';
import { fakeLlm, libraryOf, testSignal, type FakeCall } from '../testing';
import type { PipelineEmbedder } from '../types';
import { qrmemCost } from './cost';
import { defaultQrmemSettings, qrmemPipeline } from './index';

const model = loadGloveFromDisk();
const glove: PipelineEmbedder = {
  name: 'static GloVe 100d',
  embed: (texts) => {
    const v = embedTexts(model, texts);
    return Promise.resolve(
      Array.from({ length: v.count }, (_, i) => v.data.subarray(i * v.dim, (i + 1) * v.dim)),
    );
  },
};

const STORY = [
  'Alice gave the silver key to Bob before the winter storm.',
  'Bob hid the silver key inside the old lighthouse by the harbour.',
  'Carol sells fish at the market of Brook every morning.',
  'Bob thanked Alice warmly for the key at dinner.',
].join('\n\n');

const capitalised = (c: FakeCall) =>
  JSON.stringify([...new Set(c.prompt.match(/\b(Alice|Bob|Carol|Brook)\b/g) ?? [])].slice(0, 2));

function script() {
  return {
    'qrmem.summary': 'Alice gives a key to Bob, who hides it in the lighthouse.',
    'qrmem.questions': JSON.stringify(['Who sells fish at the market?']),
    'qrmem.entities': capitalised,
    'qrmem.relations': '[]',
    'qrmem.qentities': '["Alice"]',
    'qrmem.judge': [
      JSON.stringify({ answerable: false, answer: '', reason: 'where the key is is missing' }),
      JSON.stringify({ answerable: true, answer: 'In the lighthouse [2].', reason: '' }),
    ],
    'qrmem.answer': 'In the lighthouse [2].',
  };
}

/** The library's store as a Map, as the page's IndexedDB adapter behaves. */
function mapMemory() {
  const store = new Map<string, unknown>();
  return {
    get: (docId: string, key: string) => Promise.resolve(store.get(`${docId}|${key}`)),
    put: (docId: string, key: string, value: unknown) => {
      store.set(`${docId}|${key}`, structuredClone(value));
      return Promise.resolve(true);
    },
  };
}

async function ask(memory: ReturnType<typeof mapMemory>) {
  const question = 'Where is the key that Alice gave away?';
  const llm = fakeLlm({ concurrency: 1, script: script() });
  const out = await qrmemPipeline({
    question,
    library: libraryOf([{ name: 'story.txt', text: STORY }], question),
    llm,
    embedder: glove,
    memory,
    settings: { ...defaultQrmemSettings, segmentTokens: 15, maxTrials: 2 },
    signal: testSignal().signal,
    clock: llm.clock,
  });
  return { llm, out };
}

const callsTagged = (calls: FakeCall[], tags: string[]) =>
  calls.filter((c) => tags.includes(c.tag)).length;

describe('QRMeM cost by phase', () => {
  it('splits calls, tokens and time into construction (independent, dependent) and navigation', async () => {
    const { llm, out } = await ask(mapMemory());
    expect(out.status).toBe('done');
    const cost = qrmemCost(out.trace);
    // The summary is the only question-independent call; questions, entities, relations
    // and fusions depend on the question; the navigation asks for the question's entities,
    // judges, and answers when the judge could not.
    expect(cost.constructionIndependent.calls).toBe(callsTagged(llm.calls, ['qrmem.summary']));
    expect(cost.constructionIndependent.calls).toBeGreaterThan(0);
    expect(cost.constructionDependent.calls).toBe(
      callsTagged(llm.calls, [
        'qrmem.questions',
        'qrmem.entities',
        'qrmem.relations',
        'qrmem.merge',
      ]),
    );
    expect(cost.navigation.calls).toBe(
      callsTagged(llm.calls, ['qrmem.qentities', 'qrmem.judge', 'qrmem.answer']),
    );
    // Every call and token is in exactly one phase.
    expect(cost.construction.calls + cost.navigation.calls).toBe(out.trace.calls.length);
    const sum = (k: 'tokensIn' | 'tokensOut') => out.trace.calls.reduce((s, c) => s + c[k], 0);
    expect(cost.construction.tokensIn + cost.navigation.tokensIn).toBe(sum('tokensIn'));
    expect(cost.construction.tokensOut + cost.navigation.tokensOut).toBe(sum('tokensOut'));
    expect(cost.construction.tokensIn).toBe(
      cost.constructionIndependent.tokensIn + cost.constructionDependent.tokensIn,
    );
    // Time: the logical clock advances with every call, so both phases took some.
    expect(cost.construction.ms).toBeGreaterThan(0);
    expect(cost.navigation.ms).toBeGreaterThan(0);
    expect(cost.construction.ms + cost.navigation.ms).toBeLessThanOrEqual(out.trace.endMs!);
    expect(cost.constructionIndependent.steps).toEqual([
      'qrmem.build.segment',
      'qrmem.build.ner',
      'qrmem.build.summary',
    ]);
    expect(cost.navigation.steps).toEqual(
      out.trace.steps
        .map((s) => s.id)
        .filter((id) => id.startsWith('qrmem.navigate.') || id === 'qrmem.answer'),
    );
    expect(cost.navigation.steps[0]).toBe('qrmem.navigate.start');
  });

  it('a second question on the same document costs no question-independent call', async () => {
    const memory = mapMemory();
    await ask(memory);
    const { out } = await ask(memory);
    const cost = qrmemCost(out.trace);
    expect(cost.constructionIndependent.calls).toBe(0);
    expect(cost.constructionIndependent.tokensIn).toBe(0);
    expect(cost.constructionDependent.calls).toBeGreaterThan(0);
  });
});
