// @vitest-environment happy-dom
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

describe('the multi-hop "why"', () => {
  it('says relevance flows through a related fragment that scores 0.000 yet has a share', () => {
    const result = constructed();
    result.independent = Float64Array.from([0.9, 0.8, 0, 0.6, 0.5, 0.4, 0.3]);
    result.settings = { ...result.settings, relations: ['ppr'] };
    result.explanations = {
      1: {
        index: 1,
        rank: 1,
        independent: 0.8,
        environment: 0.3,
        final: 0.95,
        byKind: {
          ppr: {
            environment: 0.3,
            contributions: [
              { index: 0, weight: 0.3, amount: 0.24, share: 0.8 },
              { index: 2, weight: 0.09, amount: 0.06, share: 0.2 },
            ],
          },
        },
      },
    };
    const div = document.createElement('div');
    div.innerHTML = renderToStaticMarkup(
      <ExplanationView result={result} index={1} onPick={() => undefined} />,
    );
    const rows = [...div.querySelectorAll('tbody tr')];
    expect(rows[1].textContent).toContain('0.000');
    expect(rows[1].textContent).toContain('20%');
    expect(rows[1].querySelector('[data-testid="why-flows-through"]')?.textContent).toContain(
      'flows on through it',
    );
    // A fragment with relevance of its own needs no such note.
    expect(rows[0].querySelector('[data-testid="why-flows-through"]')).toBeNull();
  });
});
