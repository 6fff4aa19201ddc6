/**
 * @file Point the engine settings at the scripted OpenAI-compatible server on 127.0.0.1
 * (e2e/support/openai-server.ts): the lines every pipeline, Compare and evaluation spec needs.
 */
import type { Locator, Page } from '@playwright/test';
import type { OpenAiServer } from './openai-server';

export interface LoopbackEngineOptions {
  /** The context window typed into the settings, in tokens (4096 unless said). */
  contextWindow?: number;
  model?: string;
  key?: string;
}

/**
 * Choose the OpenAI-compatible engine in `scope` (the page, or the section holding the engine
 * settings) and fill its base URL, model, key and context window for `server`.
 */
export async function configureLoopbackEngine(
  scope: Page | Locator,
  server: Pick<OpenAiServer, 'url'>,
  options: LoopbackEngineOptions = {},
): Promise<void> {
  await scope.getByLabel('Engine', { exact: true }).selectOption('openai');
  await scope.getByLabel('Base URL').fill(`${server.url}/v1`);
  await scope.getByLabel('Model', { exact: true }).fill(options.model ?? 'test-model');
  await scope.getByLabel('API key').fill(options.key ?? 'sk-test-0123456789');
  await scope.getByLabel('Context window (tokens)').fill(String(options.contextWindow ?? 4096));
}
