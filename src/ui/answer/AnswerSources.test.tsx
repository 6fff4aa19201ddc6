// @vitest-environment happy-dom
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import type { PromptSource } from '../../core/prompt';
import { AnswerSources, splitByCitation } from './AnswerSources';

const sources: PromptSource[] = Array.from({ length: 20 }, (_, i) => ({
  label: i + 1,
  index: 100 + i,
  location: `pg11.txt · fragment ${101 + i}`,
  truncated: false,
}));

function render(
  cited: number[],
  writing = false,
  inferred: { label: number; claim: string }[] = [],
): HTMLElement {
  const div = document.createElement('div');
  div.innerHTML = renderToStaticMarkup(
    <AnswerSources
      sources={sources}
      cited={new Set(cited)}
      inferred={inferred}
      activeLabel={null}
      writing={writing}
      onOpen={() => {}}
    />,
  );
  return div;
}

const labels = (root: Element | null) =>
  [...(root?.querySelectorAll('li button') ?? [])].map(
    (b) => b.textContent?.match(/\[(\d+)\]/)?.[1],
  );

describe('AnswerSources', () => {
  it('lists the cited excerpts as the sources and folds the rest', () => {
    const root = render([3, 17]);
    expect(labels(root.querySelector('ol[aria-label="Sources the answer cites"]'))).toEqual([
      '3',
      '17',
    ]);
    const also = root.querySelector('details[data-testid="answer-also-given"]')!;
    expect(also.hasAttribute('open')).toBe(false);
    expect(also.querySelector('summary')?.textContent).toBe(
      'Also given to the model (18 excerpts, not cited)',
    );
    expect(labels(also)).toHaveLength(18);
    expect(labels(also)).not.toContain('3');
  });

  it('says when the answer cites nothing, and folds all twenty', () => {
    const root = render([]);
    expect(root.querySelector('[data-testid="answer-no-citation"]')?.textContent).toContain(
      'cites none',
    );
    expect(root.querySelector('ol[aria-label="Sources the answer cites"]')).toBeNull();
    expect(labels(root.querySelector('details'))).toHaveLength(20);
    // While the answer is still being written, its citations may yet come.
    expect(render([], true).querySelector('[data-testid="answer-no-citation"]')).toBeNull();
  });

  it('shows the excerpts inferred for an uncited answer, marked as inferred, each once', () => {
    const inferred = [
      { label: 7, claim: 'The Cheshire cat grins.' },
      { label: 2, claim: 'Alice cried a pool of tears.' },
      { label: 7, claim: 'It belongs to the Duchess.' },
    ];
    const root = render([], false, inferred);
    const list = root.querySelector('[data-testid="answer-inferred-sources"]');
    expect([...(list?.querySelectorAll('li button') ?? [])].map((b) => b.textContent)).toEqual([
      '[7?] pg11.txt · fragment 107',
      '[2?] pg11.txt · fragment 102',
    ]);
    expect(list?.textContent).toContain('inferred, for “The Cheshire cat grins.”');
    expect(root.querySelector('[data-testid="answer-no-citation"]')?.textContent).toContain(
      'not cited by the model',
    );
    // An answer with citations of its own shows no inferred ones.
    expect(
      render([3], false, inferred).querySelector('[data-testid="answer-inferred-sources"]'),
    ).toBeNull();
  });

  it('splits by label, keeping label order', () => {
    const split = splitByCitation(sources.slice(0, 4), new Set([4, 2]));
    expect(split.cited.map((s) => s.label)).toEqual([2, 4]);
    expect(split.uncited.map((s) => s.label)).toEqual([1, 3]);
  });
});
