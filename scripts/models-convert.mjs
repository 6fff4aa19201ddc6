/**
 * @file The `convert` step of `npm run models`: derive model files with a Python tool (today
 * scripts/gguf-to-onnx.py, which writes SmolLM2's GGUF as an ONNX decoder) run in its own virtual
 * environment.
 *
 * Why a virtual environment under the models cache: the tool needs a few packages from the Python
 * package index (numpy, gguf, onnx), and their exact versions decide the bytes it writes, so they
 * are installed at the versions the manifest pins (`tools.{name}.python`, every dependency named,
 * installed with `--no-deps` so nothing unpinned comes in), never into the system Python and never
 * inside the repository. The environment is created once and reused while the pins are the same
 * (a stamp file holds them); a run with other pins rebuilds it.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ModelsError } from './models-error.mjs';

/** What a failed command said, in one line: its last few lines of stderr (or the error). */
function said(error) {
  return String(error.stderr?.length ? error.stderr : (error.message ?? error))
    .split('\n')
    .filter((l) => l.trim() && !/^WARNING: Location/.test(l))
    .slice(-4)
    .join(' | ');
}

function words(command) {
  const w = command.split(/\s+/).filter(Boolean);
  return { cmd: w[0], args: w.slice(1) };
}

/**
 * The Python of `<cache>/venv-{name}` with the tool's pinned packages installed, created or
 * rebuilt when needed.
 */
export function toolPython(name, tool, cache, env, log) {
  const venv = join(cache, `venv-${name}`);
  const python = join(venv, process.platform === 'win32' ? 'Scripts/python.exe' : 'bin/python');
  const stamp = join(venv, 'fragrel-pins.txt');
  const pins = tool.python ?? [];
  const wanted = `${pins.join('\n')}\n`;
  if (existsSync(python) && existsSync(stamp) && readFileSync(stamp, 'utf8') === wanted) {
    log(`  ${name}: reusing ${venv}`);
    return python;
  }
  rmSync(venv, { recursive: true, force: true });
  const base = words(env.FRAGREL_PYTHON || 'python3');
  log(`  ${name}: creating ${venv} with ${pins.join(' ')}`);
  try {
    execFileSync(base.cmd, [...base.args, '-m', 'venv', venv], {
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 5 * 60_000,
    });
  } catch (error) {
    rmSync(venv, { recursive: true, force: true });
    if (error.code === 'ENOENT') {
      throw new ModelsError(
        `Deriving files with ${name} needs Python 3, and ${base.cmd} was not found. Install it ` +
          `(Debian: apt-get install python3 python3-venv) or set FRAGREL_PYTHON to a Python 3 ` +
          `interpreter, then run \`npm run models\` again.`,
      );
    }
    throw new ModelsError(
      `${base.cmd} -m venv could not create ${venv} (it said: ${said(error)}). Python's venv ` +
        `module is a package of its own on Debian and Ubuntu: apt-get install python3-venv; ` +
        `then run \`npm run models\` again.`,
    );
  }
  try {
    execFileSync(
      python,
      [
        '-m',
        'pip',
        'install',
        '--no-deps',
        '--only-binary=:all:',
        '--disable-pip-version-check',
        '--quiet',
        ...pins,
      ],
      { stdio: ['ignore', 'pipe', 'pipe'], timeout: 15 * 60_000 },
    );
  } catch (error) {
    rmSync(venv, { recursive: true, force: true });
    throw new ModelsError(
      `Could not install ${name}'s pinned packages (${pins.join(' ')}) from the Python package ` +
        `index into ${venv} (pip said: ${said(error)}). Check that this machine reaches the ` +
        `index (a proxy, or pip's index-url) and that wheels of these versions exist for this ` +
        `Python, then run \`npm run models\` again.`,
    );
  }
  writeFileSync(stamp, wanted);
  return python;
}

/**
 * Run the manifest's tool `convert.tool` on `source`; returns the folder it wrote (the caller
 * moves the files it needs and deletes the folder). Options of `convert` other than `model`,
 * `path` and `tool` become `--key value` arguments (`weights: "float16"` → `--weights float16`).
 */
export function convertWithTool({ convert, source, manifest, cache, repoRoot, env, log }) {
  const tool = manifest.tools?.[convert.tool];
  if (!tool) throw new ModelsError(`The manifest has no tool ${convert.tool} under "tools".`);
  const python = toolPython(convert.tool, tool, cache, env, log);
  const options = Object.entries(convert)
    .filter(([key]) => !['model', 'path', 'tool'].includes(key))
    .flatMap(([key, value]) => [`--${key}`, String(value)]);
  // A folder per set of options: two conversions of one model (float16 and 8-bit) in one run
  // must not empty each other's output before its files are moved.
  const tag = createHash('sha256')
    .update(JSON.stringify([source, options]))
    .digest('hex');
  const out = join(cache, 'convert', `${convert.tool}-${tag.slice(0, 12)}`);
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  const script = resolve(repoRoot, tool.script);
  const started = Date.now();
  try {
    execFileSync(python, [script, source, out, ...options], {
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 30 * 60_000,
      maxBuffer: 16 << 20,
    });
  } catch (error) {
    rmSync(out, { recursive: true, force: true });
    throw new ModelsError(
      `${tool.script} could not convert ${source} (it said: ${said(error)}). The source file ` +
        `was verified, so this is a fault of the tool or its environment: delete ` +
        `${join(cache, `venv-${convert.tool}`)} and run \`npm run models\` again.`,
    );
  }
  log(`  ${convert.tool}: converted in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return out;
}
