/**
 * @file `parseBenchmarkFile`: recognise a benchmark file's format from its content (never from
 * its extension alone) and parse it into {@link BenchmarkItem}s. The single entry point the
 * evaluation page and per-document tuning use.
 *
 * Detection, on the first record: a whole-file JSON array is HotpotQA (para_a or context +
 * supporting_facts), MuSiQue (paragraphs) or MTBench+ (conversations); otherwise JSON lines are
 * L-Eval (input + instructions + outputs), LongBench (input + context + answers), RepoEval
 * (prompt + metadata.task_id) or the simple format (document + question). Anything else gets
 * {@link EXPECTED_FORMATS}.
 */
import { decodeUtf8 } from '../../embed/static';
import {
  hotpotBenchmark,
  jsonLines,
  levalBenchmark,
  longbenchBenchmark,
  mtbenchBenchmark,
  musiqueBenchmark,
  repoevalBenchmark,
  simpleBenchmark,
} from './formats';
import { EXPECTED_FORMATS, type BenchmarkParse, type CompanionFile } from './types';

const isRow = (x: unknown): x is Record<string, unknown> =>
  typeof x === 'object' && x !== null && !Array.isArray(x);

/**
 * Text of a file: strings as they are, bytes as UTF-8 (the core has no TextDecoder; the shared
 * strict decoder); a byte-order mark dropped. Null for bytes that are not UTF-8.
 */
export function benchmarkText(input: string | Uint8Array): string | null {
  let text: string;
  try {
    text = typeof input === 'string' ? input : decodeUtf8(input);
  } catch {
    return null;
  }
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/**
 * Parse a benchmark file. `companions` are other files dropped with it (RepoEval's
 * repo_files.jsonl). A file in none of the formats gets a message naming what was expected.
 */
export function parseBenchmarkFile(
  name: string,
  input: string | Uint8Array,
  companions: readonly CompanionFile[] = [],
): BenchmarkParse {
  const text = benchmarkText(input);
  if (text === null) {
    return { ok: false, error: `${name} is not UTF-8 text. ${EXPECTED_FORMATS}` };
  }
  const trimmed = text.trim();
  if (trimmed === '') return { ok: false, error: `${name} is empty. ${EXPECTED_FORMATS}` };
  if (trimmed.startsWith('[')) {
    let rows: unknown;
    try {
      rows = JSON.parse(trimmed);
    } catch {
      return {
        ok: false,
        error: `${name} starts like a JSON array but is not valid JSON. ${EXPECTED_FORMATS}`,
      };
    }
    const first = Array.isArray(rows) ? rows[0] : undefined;
    if (Array.isArray(rows) && isRow(first)) {
      if ('supporting_facts' in first && ('para_a' in first || 'context' in first)) {
        return hotpotBenchmark(rows);
      }
      if ('paragraphs' in first) return musiqueBenchmark(rows);
      if ('conversations' in first) return mtbenchBenchmark(rows);
    }
    return {
      ok: false,
      error: `${name} is a JSON array of records in no known format. ${EXPECTED_FORMATS}`,
    };
  }
  const parsed = jsonLines(text);
  if (!parsed.ok) {
    return { ok: false, error: `${name}, line ${parsed.line}: not JSON. ${EXPECTED_FORMATS}` };
  }
  const first = parsed.rows[0];
  if (isRow(first)) {
    if ('instructions' in first && 'outputs' in first) return levalBenchmark(name, text);
    if ('context' in first && 'answers' in first) return longbenchBenchmark(parsed.rows);
    if ('prompt' in first && isRow(first.metadata) && 'task_id' in first.metadata) {
      return repoevalBenchmark(parsed.rows, companions);
    }
    if ('document' in first && 'question' in first) return simpleBenchmark(parsed.rows);
    if ('repo' in first && 'path' in first && 'text' in first) {
      return {
        ok: false,
        error: `${name} lists RepoEval repository files; drop it together with the RepoEval tasks file (function_level_completion_*.jsonl).`,
      };
    }
  }
  return { ok: false, error: `${name} is in no known benchmark format. ${EXPECTED_FORMATS}` };
}
