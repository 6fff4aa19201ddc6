// @vitest-environment happy-dom
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { GGUF_MODELS, ggufCatalogueUrl, RECOMMENDED_GGUF } from '../../llm/gguf-catalogue';
import { secondsPerAnswer } from '../../llm/reading-budget';
import { GgufCatalogue } from './GgufCatalogue';
import { modelFileOf, noteAnswerSpeed } from './ReadingBudget';

const HUB = 'http://hub.test';

function render(): HTMLElement {
  const div = document.createElement('div');
  div.innerHTML = renderToStaticMarkup(
    <GgufCatalogue
      hub={HUB}
      onHubChange={() => {}}
      onLoadUrl={() => {}}
      activeUrl={null}
      busy={false}
      idPrefix="t"
    />,
  );
  return div;
}

const measuredLine = (div: HTMLElement, key: string) =>
  div.querySelector(`[data-key="${key}"] [data-testid="gguf-measured"]`)?.textContent ?? '';

describe('the GGUF catalogue', () => {
  it('says each model is not measured here until an answer on this machine measures it', () => {
    const div = render();
    for (const model of GGUF_MODELS)
      expect(measuredLine(div, model.key)).toBe('Speed: not measured on this machine yet.');
  });

  it('shows the seconds per answer measured here for a model used on this machine', () => {
    const file = modelFileOf(ggufCatalogueUrl(RECOMMENDED_GGUF, HUB));
    noteAnswerSpeed(file, {
      elapsedMs: 21_000,
      promptTokens: 330,
      promptTokensPerSecond: 22,
      tokensPerSecond: 8,
    });
    const seconds = Math.round(
      secondsPerAnswer({ promptTokensPerSecond: 22, tokensPerSecond: 8 })!,
    );
    const div = render();
    expect(measuredLine(div, RECOMMENDED_GGUF.key)).toBe(
      `Speed: measured here: about ${seconds} s per answer (reads 22 tokens/s, writes 8.0 tokens/s).`,
    );
    const others = GGUF_MODELS.filter((m) => modelFileOf(ggufCatalogueUrl(m, HUB)) !== file);
    expect(others.length).toBeGreaterThan(0);
    for (const model of others)
      expect(measuredLine(div, model.key)).toBe('Speed: not measured on this machine yet.');
  });
});
