import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { selectByBudget } from '../../core/fragrel';
import type { RetrievalResult } from '../../workers/retrieval-types';
import { ExplanationView } from './ExplanationView';

/** A 2,000-word budget where the 4th-ranked fragment is 600 words and 500 were left. */
function constructed(): RetrievalResult {
  const final = Float64Array.from([0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3]);
  const costs = Uint32Array.from([500, 500, 500, 600, 300, 500, 100]);
  const sel = selectByBudget(final, costs, 2000);
  const n = final.length;
  return {
    question: 'q',
    queryTerms: [],
    documents: [{ docId: 'd', name: 'Book', offset: 0, count: n }],
    starts: new Uint32Array(n),
    ends: new Uint32Array(n),
    costs,
    labels: Array.from({ length: n }, () => ''),
    independent: final,
    environmentByKind: {},
    environment: new Float64Array(n),
    final,
    selected: sel.indices,
    selectedRanked: sel.ranked,
    top: Uint32Array.from([0, 1, 2, 3, 4, 5, 6]),
    explanations: {},
    cutoff: 0,
    used: sel.used,
    budget: 2000,
    settings: { alpha: 0.5, wRel: 0.3, relations: ['context'], scoring: 'dense', budget: 2000 },
    timings: { independentMs: 0, rerankMs: 0 },
  };
}

const html = (index: number) =>
  renderToStaticMarkup(
    <ExplanationView result={constructed()} index={index} onPick={() => undefined} />,
  );

describe('ExplanationView', () => {
  it('says length, not score, kept the 4th-ranked fragment out', () => {
    const out = html(3);
    expect(out).toContain('data-reason="too-long"');
    expect(out).toContain('Too long for what was left: 500 words');
    expect(out).toContain('it has 600 words');
    expect(out).not.toContain('Not enough score');
  });

  it('says a taken fragment was taken', () => {
    expect(html(4)).toContain('data-reason="selected"');
  });
});
