import { describe, expect, it } from 'vitest';
import { defaultEngineSettings, type EngineSettings } from '../../llm/settings';
import type { EngineKind } from '../../llm/types';
import type { EngineState } from '../answer/useEngine';
import { acquireEngine, engineOptions } from './engines';

/** The parts of the shared engine state that Compare reads. */
function state(settings: EngineSettings, keys: Partial<Record<EngineKind, string>>): EngineState {
  return {
    settings,
    problem: null,
    ggufFile: null,
    keyFor: (kind: EngineKind) => keys[kind] ?? '',
    acquire: () => Promise.resolve({ code: 'bad-request', message: 'current engine' }),
  } as unknown as EngineState;
}

const openaiCurrent: EngineSettings = {
  ...defaultEngineSettings,
  kind: 'openai',
  openai: { baseUrl: 'http://127.0.0.1:9/v1', model: 'test-model', contextLimit: 4096 },
};

describe('engineOptions', () => {
  it('offers the current engine, and another API engine once its key is set', () => {
    expect(engineOptions(state(openaiCurrent, {})).map((o) => o.id)).toEqual(['current']);
    const options = engineOptions(state(openaiCurrent, { anthropic: 'sk-ant-x' }));
    expect(options.map((o) => [o.id, o.kind, o.model, o.local])).toEqual([
      ['current', 'openai', 'test-model', false],
      ['anthropic', 'anthropic', 'claude-sonnet-4-5', false],
    ]);
    expect(options[0].label).toContain('test-model');
  });
  it('an in-browser current engine is local; an API engine with an invalid URL is not offered', () => {
    const wllama: EngineSettings = {
      ...defaultEngineSettings,
      kind: 'wllama',
      wllama: { ...defaultEngineSettings.wllama, url: 'https://example.org/m/SmolLM2.gguf' },
      openai: { ...defaultEngineSettings.openai, baseUrl: 'not a url' },
    };
    const options = engineOptions(state(wllama, { openai: 'sk-x', anthropic: 'sk-ant-x' }));
    expect(options.map((o) => [o.id, o.local, o.model])).toEqual([
      ['current', true, 'SmolLM2.gguf'],
      ['anthropic', false, 'claude-sonnet-4-5'],
    ]);
  });
});

describe('acquireEngine', () => {
  it('builds another API engine from its own settings; the current one through acquire', async () => {
    const s = state(openaiCurrent, { anthropic: 'sk-ant-x' });
    const other = await acquireEngine(s, 'anthropic', new AbortController().signal);
    expect('generate' in other && other.kind).toBe('anthropic');
    expect('generate' in other && other.label).toContain('claude-sonnet-4-5');
    expect(await acquireEngine(s, 'current', new AbortController().signal)).toEqual({
      code: 'bad-request',
      message: 'current engine',
    });
  });
});
