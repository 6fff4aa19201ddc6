/**
 * @file Failures to load a transformer model, told in words a person can act on.
 *
 * The library's own messages ("Could not locate file: <url>", "Failed to fetch") name neither
 * the model the user picked nor what to do. `describeLoadError` keeps the original text at the
 * end, for bug reports, and leads with: which model, which host, what happened, what to try.
 */

/** A model could not be fetched or started. Crosses the worker boundary by its name. */
export class ModelLoadError extends Error {
  override name = 'ModelLoadError';
  constructor(
    message: string,
    /** 'not-found' (404/401/403), 'network' (no answer), 'format' (not a model), 'runtime'. */
    readonly reason: 'not-found' | 'network' | 'format' | 'runtime',
  ) {
    super(message);
  }
}

export interface LoadErrorContext {
  hubId: string;
  host: string;
  device: string;
  dtype: string;
}

const WHAT_TO_DO =
  'Check the model id, check the hub host setting (in the app: “Download models from” under ' +
  '“How passages are chosen” › Advanced; on the model check page: “Hub host”), or pick the ' +
  'offline static embedder.';

/** Turn whatever the load threw into a ModelLoadError; AbortErrors pass through unchanged. */
export function describeLoadError(error: unknown, ctx: LoadErrorContext): Error {
  if (error instanceof Error && error.name === 'AbortError') return error;
  if (error instanceof ModelLoadError) return error;
  const original = error instanceof Error ? error.message : String(error);
  const name = error instanceof Error ? error.name : '';
  const status = (error as { status?: unknown } | null)?.status;
  const model = `"${ctx.hubId}"`;

  const missing = /Could not locate file|Unauthorized access to file|Forbidden access to file/i;
  if (name === 'ModelFileNotFoundError' || missing.test(original)) {
    const url = /"([^"]+)"/.exec(original)?.[1];
    const file = url ? fileOf(url) : 'a model file';
    const code = typeof status === 'number' ? ` (HTTP ${status})` : '';
    const weights = /\.onnx(_data)?$/.test(file)
      ? ` The repository may not hold ${ctx.dtype} weights; try another dtype.`
      : '';
    return new ModelLoadError(
      `The model ${model} could not be fetched from ${ctx.host}: ${file} is not there${code}.` +
        `${weights} ${WHAT_TO_DO} (${original})`,
      'not-found',
    );
  }
  if (
    (error instanceof TypeError && /fetch|network|load failed/i.test(original)) ||
    /NetworkError|Failed to fetch|ERR_/i.test(original)
  ) {
    return new ModelLoadError(
      `The model ${model} could not be fetched: the hub host ${ctx.host} did not answer ` +
        `(network error). ${WHAT_TO_DO} (${original})`,
      'network',
    );
  }
  if (error instanceof SyntaxError || /JSON|Unexpected token/i.test(original)) {
    return new ModelLoadError(
      `The model ${model} could not be read from ${ctx.host}: the host answered with something ` +
        `that is not a model file (is it a hub host in the /{model}/resolve/main/{file} layout?). ` +
        `${WHAT_TO_DO} (${original})`,
      'format',
    );
  }
  return new ModelLoadError(
    `The model ${model} from ${ctx.host} could not be started on ${ctx.device} (${ctx.dtype}): ` +
      `${original}`,
    'runtime',
  );
}

/** `https://host/org/m/resolve/main/onnx/model.onnx` → `onnx/model.onnx`. */
function fileOf(url: string): string {
  const m = /\/resolve\/[^/]+\/(.+)$/.exec(url);
  return m ? decodeURIComponent(m[1]) : url;
}
