import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { datasetPath } from '../../../test/datasets';
import { inferCitations, inferredLabels } from './attribute';

// Alice in Wonderland (Project Gutenberg), cut into 120-word excerpts as a retrieval run would
// give them to the model; a handful from across the book, labelled [1]..[n] in that order.
const words = readFileSync(datasetPath('gutenberg/pg11.txt'), 'utf8').split(/\s+/).filter(Boolean);
const chunk = (i: number) => words.slice(i * 120, (i + 1) * 120).join(' ');
const containing = (needle: string) => {
  for (let i = 0; i * 120 < words.length; i++) if (chunk(i).includes(needle)) return i;
  throw new Error(`no excerpt holds ${needle}`);
};
const picked = [
  containing('four inches deep'),
  containing('Cheshire cat,'),
  containing('Mock Turtle'),
  containing('Off with her head'),
  containing('Drink me'),
];
const sources = picked.map((i, k) => ({ label: k + 1, text: chunk(i) }));

describe('inferCitations (real Alice excerpts)', () => {
  it('gives each sentence of an uncited answer the excerpt that carries it', () => {
    const answer =
      'The Cheshire cat belongs to the Duchess and grins from ear to ear. Alice cried until there was a large pool of tears all round her, about four inches deep.';
    const inferred = inferCitations(answer, sources);
    expect(inferred).toHaveLength(2);
    const [cat, tears] = inferred;
    expect(answer.slice(cat.claim.start, cat.claim.end)).toMatch(/^The Cheshire cat/);
    expect(cat.label).toBe(2);
    expect(sources[1].text.slice(cat.support.start, cat.support.end)).toMatch(/Cheshire|grin/);
    expect(tears.label).toBe(1);
    expect(sources[0].text.slice(tears.support.start, tears.support.end)).toContain('pool');
    expect(inferredLabels(inferred)).toEqual([2, 1]);
  });

  it('infers nothing for a sentence no excerpt supports, or one with a single content word', () => {
    const inferred = inferCitations(
      'The weather in Paris was lovely that spring. Yes. Alice.',
      sources,
    );
    expect(inferred).toEqual([]);
  });

  it('does not depend on the order the excerpts are given in', () => {
    const answer = 'The Cheshire cat grins, the Duchess says.';
    const forward = inferCitations(answer, sources);
    const backward = inferCitations(answer, [...sources].reverse());
    expect(forward.map((c) => c.label)).toEqual([2]);
    expect(backward.map((c) => c.label)).toEqual([2]);
  });
});
