import { describe, expect, it } from 'vitest';
import { AnthropicEngine } from './anthropic';
import { OpenAiCompatibleEngine } from './openai';
import {
  apiSettingsProblem,
  createApiEngine,
  defaultEngineSettings,
  normalizeEngineSettings,
} from './settings';

describe('engine settings', () => {
  it('fill in defaults field by field and reject wrong types', () => {
    expect(normalizeEngineSettings(undefined)).toEqual(defaultEngineSettings);
    const s = normalizeEngineSettings({
      kind: 'anthropic',
      answerTokens: '9',
      openai: { baseUrl: 'http://localhost:1234/v1', contextLimit: 1e12 },
      wllama: { url: 5, gpu: 'yes' },
      webllm: { modelId: 'no-such-model' },
    });
    expect(s.kind).toBe('anthropic');
    expect(s.answerTokens).toBe(defaultEngineSettings.answerTokens);
    expect(s.openai).toEqual({
      baseUrl: 'http://localhost:1234/v1',
      model: defaultEngineSettings.openai.model,
      contextLimit: 10_000_000,
    });
    expect(s.wllama.url).toBe('');
    expect(s.wllama.gpu).toBe(false);
    expect(normalizeEngineSettings({ wllama: { gpu: true } }).wllama.gpu).toBe(true);
    expect(s.webllm.modelId).toBe(defaultEngineSettings.webllm.modelId);
    expect(normalizeEngineSettings({ kind: 'gpt' }).kind).toBe(defaultEngineSettings.kind);
    // The reading budget's scale: kept when it is one the panel offers, else the budget itself.
    expect(defaultEngineSettings.passageScale).toBe(1);
    expect(normalizeEngineSettings({ passageScale: 4 }).passageScale).toBe(4);
    expect(normalizeEngineSettings({ passageScale: 0 }).passageScale).toBe(0);
    expect(normalizeEngineSettings({ passageScale: 'lots' }).passageScale).toBe(1);
  });

  it('say what is missing before an API engine can be made', () => {
    expect(apiSettingsProblem({ baseUrl: '', model: 'm', contextLimit: 1 })).toMatch(/base URL/);
    expect(apiSettingsProblem({ baseUrl: 'ftp://x', model: 'm', contextLimit: 1 })).toMatch(
      /https/,
    );
    expect(apiSettingsProblem({ baseUrl: 'https://x.test', model: ' ', contextLimit: 1 })).toMatch(
      /model/,
    );
    expect(createApiEngine({ ...defaultEngineSettings, kind: 'openai' }, 'k')).toBeInstanceOf(
      OpenAiCompatibleEngine,
    );
    expect(createApiEngine({ ...defaultEngineSettings, kind: 'anthropic' }, 'k')).toBeInstanceOf(
      AnthropicEngine,
    );
    expect(createApiEngine({ ...defaultEngineSettings, kind: 'wllama' }, 'k')).toBeNull();
  });
});
