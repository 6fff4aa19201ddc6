/**
 * @file Node-side access to the real model weights that `npm run models` fetched into the hub
 * layout (scripts/models.mjs), for tests and benchmarks.
 *
 * The weights are served by the same local hub mirror the Chromium tests use
 * (e2e/support/hub-mirror.ts) and loaded by transformers.js through its ordinary hub path, so
 * Node runs the very files and layout the browser loads. In Node transformers.js runs ONNX
 * Runtime's native CPU build (onnxruntime-node), which is much faster than wasm: good for
 * meaning tests and quality benchmarks, not for browser speed figures (bench/ measures those in
 * Chromium).
 *
 * When the weights are missing the helpers throw an error that says to run `npm run models`:
 * CI runs it before `npm test`, so a missing model is a failure, not a skip.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { startHubMirror, type HubMirror } from '../e2e/support/hub-mirror';
// @ts-expect-error: a plain ESM script without types; only these two functions are used.
import { modelsHubDir, loadManifest } from '../scripts/models.mjs';

export interface RealModelFile {
  hubId: string;
  path: string;
}

/** The hub folder `npm run models` fills (FRAGREL_MODELS_DIR or ~/.cache/fragrel-lens/models). */
export const realModelsHub: string = modelsHubDir();

/** Absolute path of one fetched file in the hub layout. */
export function realModelPath(hubId: string, file: string): string {
  return join(realModelsHub, hubId, 'resolve', 'main', file);
}

/** Throws with what to do unless every file of the manifest's model `id` is in place. */
export function requireRealModel(id: string): { hubId: string; files: string[] } {
  const manifest = loadManifest() as {
    models: { id: string; hubId: string; files: { path: string }[] }[];
  };
  const model = manifest.models.find((m) => m.id === id);
  if (!model) throw new Error(`No model ${id} in scripts/models.manifest.json`);
  const missing = model.files
    .map((f) => realModelPath(model.hubId, f.path))
    .filter((p) => !existsSync(p));
  if (missing.length) {
    throw new Error(
      `The real model ${id} is not fetched (${missing[0]} is missing). Run \`npm run models\` ` +
        `first (CI does, before npm test).`,
    );
  }
  return { hubId: model.hubId, files: model.files.map((f) => f.path) };
}

/** The real MiniLM sentence embedder: mean pooling, L2-normalised, int8 weights. */
export interface NodeSentenceEmbedder {
  readonly dim: number;
  /** Row-major, `texts.length * dim`, rows unit length. */
  embed(texts: readonly string[], batchSize?: number): Promise<Float32Array>;
  close(): Promise<void>;
}

/**
 * Load all-MiniLM-L6-v2 (the int8 ONNX file fetched by `npm run models`) through a local hub
 * mirror, exactly as the app's catalogue names it (`Xenova/all-MiniLM-L6-v2`, dtype q8).
 */
export async function loadMiniLM(): Promise<NodeSentenceEmbedder> {
  const { hubId } = requireRealModel('all-MiniLM-L6-v2');
  const mirror: HubMirror = await startHubMirror([realModelsHub]);
  const { env, pipeline } = await import('@huggingface/transformers');
  env.allowLocalModels = false;
  env.allowRemoteModels = true;
  env.remoteHost = mirror.url;
  // In Node, transformers.js hands ONNX Runtime a file path, so it needs its file cache; keep it
  // beside the fetched weights, outside the repository.
  env.useFSCache = true;
  env.cacheDir = join(realModelsHub, '..', 'transformers-node-cache');
  env.useBrowserCache = false;
  const pipe = await pipeline('feature-extraction', hubId, { dtype: 'q8', device: 'cpu' });
  const dim = 384;
  return {
    dim,
    async embed(texts, batchSize = 32) {
      const out = new Float32Array(texts.length * dim);
      for (let at = 0; at < texts.length; at += batchSize) {
        const batch = texts.slice(at, at + batchSize) as string[];
        const tensor = await pipe(batch, { pooling: 'mean', normalize: true });
        out.set(tensor.data as Float32Array, at * dim);
      }
      return out;
    },
    async close() {
      await pipe.dispose();
      await mirror.close();
    },
  };
}
