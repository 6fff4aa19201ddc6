/**
 * @file Fixtures for the chat view's tests: a hand-made conversation whose 13th message refers
 * back to round 2, and a retrieval result of a small library document. Plain data only.
 */
import type { ChatRound } from '../../core/chat';
import { UNRELATED_ROUNDS } from '../../core/chat/testing';
import type { RetrievalResult } from '../../workers/retrieval-types';

/** 12 rounds on unrelated topics; round 2 (index 1) is about Biscuit, the lighthouse cat. */
export const BISCUIT_CHAT: readonly ChatRound[] = [
  {
    user: 'Can you recommend a good book about the history of mathematics?',
    assistant: 'Try "Journey through Genius" by William Dunham; it walks through great theorems.',
  },
  {
    user: 'My grandfather was a lighthouse keeper, and his cat was named Biscuit: a ginger tabby who slept on the lamp room stairs and caught fish from the rocks.',
    assistant:
      'What a lovely memory. A lighthouse cat like Biscuit, keeping the keeper company through storms, sounds like quite a character.',
  },
  ...UNRELATED_ROUNDS,
];

/** The 13th message: it refers back to round 2. */
export const BISCUIT_QUESTION =
  'Thinking of my grandfather again: what colour was his cat Biscuit, and where did the cat sleep in the lighthouse?';

/**
 * A retrieval result over one document of `texts.length` fragments (one per text, each as many
 * words as it has), with the given final scores; the first `selected` by score are selected.
 */
export function fakeRetrieval(
  texts: readonly string[],
  final: readonly number[],
  selected: number,
  docId = 'doc',
  name = 'keeper.txt',
): { result: RetrievalResult; source: string } {
  let source = '';
  const starts: number[] = [];
  const ends: number[] = [];
  for (const t of texts) {
    starts.push(source.length);
    source += t;
    ends.push(source.length);
    source += '\n\n';
  }
  const ranked = final
    .map((_, i) => i)
    .sort((a, b) => final[b] - final[a] || a - b)
    .slice(0, selected);
  const f = Float64Array.from(final);
  const result: RetrievalResult = {
    question: 'q',
    queryTerms: [],
    documents: [{ docId, name, offset: 0, count: texts.length }],
    starts: Uint32Array.from(starts),
    ends: Uint32Array.from(ends),
    costs: Uint32Array.from(texts, (t) => t.split(/\s+/).filter(Boolean).length),
    labels: texts.map(() => ''),
    independent: f,
    environmentByKind: {},
    environment: new Float64Array(texts.length),
    final: f,
    selected: Uint32Array.from([...ranked].sort((a, b) => a - b)),
    selectedRanked: Uint32Array.from(ranked),
    top: Uint32Array.from(ranked),
    explanations: {},
    cutoff: ranked.length ? final[ranked[ranked.length - 1]] : 0,
    used: 0,
    budget: 2000,
    settings: { alpha: 0.5, wRel: 0.3, relations: ['context'], scoring: 'dense', budget: 2000 },
    timings: { independentMs: 0, rerankMs: 0 },
  };
  return { result, source };
}
