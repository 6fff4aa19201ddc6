/**
 * @file A document's source text over several records when one would be too large.
 *
 * Chromium refuses an IndexedDB value whose serialised size passes 133,169,152 bytes (127 MiB),
 * and a string holding any character above U+00FF is stored at two bytes a character: the 107
 * MiB book of the scale bench (curly quotes) is 214 MB as stored, and its save failed after 40 s
 * of indexing (docs/scale.md, section 15). A text over `MAX_PART_BYTES` as stored is cut into
 * parts: the first record keeps the document's key (`docId`) and says how many parts there are;
 * part k ≥ 1 lies under `sourcePartKey(docId, k)`, a key no document id can take (ids are UUIDs,
 * and the separator is U+0000). No schema change was needed: the store's key is still `docId`.
 *
 * Every reader of the `sources` store goes through `readSource`, every writer through
 * `sourceRecords`, and a delete also deletes `sourcePartRange(docId)`; exports carry the joined
 * text, so an export file does not depend on this layout.
 */
import type { SourceRecord } from './schema';

/** Bytes one source record may take as stored (well under Chromium's 127 MiB for one value). */
export const MAX_PART_BYTES = 64 * 1024 * 1024;

const SEPARATOR = '\u0000part';

export function sourcePartKey(docId: string, k: number): string {
  return `${docId}${SEPARATOR}${k}`;
}

/** Every part key of `docId` (not the first record's key). */
export function sourcePartRange(docId: string): IDBKeyRange {
  return IDBKeyRange.bound(`${docId}${SEPARATOR}`, `${docId}${SEPARATOR}\uffff`);
}

/** The document a part key belongs to, or undefined for a document's own key. */
export function partOwner(key: string): string | undefined {
  const at = key.indexOf(SEPARATOR);
  return at < 0 ? undefined : key.slice(0, at);
}

/** The records that store `text` for `docId`: one, or parts of at most `maxBytes` as stored. */
export function sourceRecords(
  docId: string,
  text: string,
  maxBytes: number = MAX_PART_BYTES,
): SourceRecord[] {
  // eslint-disable-next-line no-control-regex
  const bytesPerChar = /[^\u0000-\u00ff]/.test(text) ? 2 : 1;
  const chars = Math.max(2, Math.floor(maxBytes / bytesPerChar));
  if (text.length <= chars) return [{ docId, text }];
  const pieces: string[] = [];
  for (let at = 0; at < text.length;) {
    let end = Math.min(text.length, at + chars);
    // Never between the two halves of a surrogate pair.
    const last = text.charCodeAt(end - 1);
    if (end < text.length && last >= 0xd800 && last <= 0xdbff) end--;
    pieces.push(text.slice(at, end));
    at = end;
  }
  return pieces.map((piece, k) =>
    k === 0
      ? { docId, text: piece, parts: pieces.length }
      : { docId: sourcePartKey(docId, k), text: piece },
  );
}

/** The whole text of `docId` from its record(s); undefined when absent or a part is missing. */
export async function readSource(
  get: (key: string) => Promise<SourceRecord | undefined>,
  docId: string,
): Promise<string | undefined> {
  const first = await get(docId);
  if (!first || !first.parts || first.parts <= 1) return first?.text;
  const rest = await Promise.all(
    Array.from({ length: first.parts - 1 }, (_, k) => get(sourcePartKey(docId, k + 1))),
  );
  if (rest.some((r) => r === undefined)) return undefined;
  return first.text + rest.map((r) => r!.text).join('');
}
