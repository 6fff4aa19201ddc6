/**
 * @file WebLLM's engine in a worker of ours: WebLLM's own handler answers the messages of the
 * `WebWorkerMLCEngine` in src/llm/webllm.ts (web-llm's protocol, not ours: it carries the model,
 * the streaming chunks and the load progress).
 */
import { WebWorkerMLCEngineHandler } from '@mlc-ai/web-llm';

const handler = new WebWorkerMLCEngineHandler();
self.onmessage = (message: MessageEvent) => handler.onmessage(message);
