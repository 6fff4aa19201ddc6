// @vitest-environment happy-dom
import { act } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { defaultEngineSettings } from '../../llm/settings';
import { recordSpeed, speedKey } from '../pipelines/engine-speed';
import { OnnxFields } from './OnnxFields';
import type { EngineSettingsProps } from './engine-fields';

const props = (
  over: Partial<EngineSettingsProps> = {},
): EngineSettingsProps & { idPrefix: string } => ({
  settings: { ...defaultEngineSettings, kind: 'onnx' },
  onChange: () => {},
  apiKey: {
    value: '',
    remember: false,
    stored: false,
    onChange: () => {},
    onRemember: () => {},
    onForget: () => {},
  },
  local: null,
  onLoad: () => {},
  onUnload: () => {},
  ggufFile: null,
  onGgufFile: () => {},
  webgpuProblem: null,
  canLoad: true,
  busy: false,
  hub: 'http://127.0.0.1:9999/',
  idPrefix: 'x',
  ...over,
});

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

let root: Root | null = null;
function render(node: React.ReactNode): HTMLElement {
  const host = document.createElement('div');
  document.body.append(host);
  root = createRoot(host);
  act(() => root!.render(node));
  return host;
}
const byTestId = (host: HTMLElement, id: string) =>
  host.querySelector(`[data-testid="${id}"]`)?.textContent ?? '';

describe('the ONNX engine fields', () => {
  beforeEach(() => localStorage.clear());
  afterEach(() => {
    act(() => root?.unmount());
    root = null;
    document.body.innerHTML = '';
  });

  it('name the recommended model, its licence and size, and the page hub it comes from', () => {
    const host = render(<OnnxFields {...props()} />);
    const hint = byTestId(host, 'onnx-hint');
    expect(hint).toContain('SmolLM2 135M Instruct (Apache-2.0, up to 540 MB)');
    expect(hint).toContain('downloaded once from 127.0.0.1:9999');
    expect(byTestId(host, 'onnx-measured')).toBe('not measured on this machine yet.');
  });

  it('say what an answer costs here once an answer measured it', () => {
    recordSpeed(speedKey('onnx', 'HuggingFaceTB/SmolLM2-135M-Instruct'), {
      elapsedMs: 9000,
      promptTokens: 456,
      completionTokens: 20,
      firstTokenMs: 6000,
      promptTokensPerSecond: 76,
      tokensPerSecond: 20,
    });
    const host = render(<OnnxFields {...props()} />);
    expect(byTestId(host, 'onnx-measured')).toMatch(
      /^measured here: about \d+ s per answer \(reads 76 tokens\/s, writes 20\.0 tokens\/s\)\.$/,
    );
  });
});
