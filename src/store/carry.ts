/**
 * @file A library you can carry: the stored records of some documents (or of the whole library,
 * with its settings) as one versioned zip file, and back. Layout in docs/storage.md.
 *
 *   manifest.json          format, version, counts, when and by what it was written
 *   records.json           every record as stored, binary fields replaced by {"$bin": path}
 *   sources/<n>.txt        each document's source text (UTF-8), readable by any tool
 *   bin/<n>.bin            each binary field (little-endian typed arrays, as stored)
 *
 * Why a zip through fflate (already the app's zip library): it is one file a person can keep,
 * any tool can open it, binary arrays stay binary (no base64, no JSON numbers), and reading it
 * needs nothing new in the bundle. Parquet/Arrow would need a large WASM or JS library for data
 * that are a handful of flat arrays per document.
 *
 * Reading checks everything before anything is stored: the format name, the version (a newer
 * file is refused with a clear message, an older one migrated by FILE_MIGRATIONS), the record
 * layout, every binary part present with the size its record needs. A file failing any check
 * is refused as a whole; the store's import is one transaction, so nothing half-made is kept.
 */
import { strFromU8, strToU8, unzipSync, zipSync, type Zippable } from 'fflate';
import type { LibraryRecords } from './library';
import { SERIALIZATION_VERSION } from './schema';

export const LIBRARY_FILE_FORMAT = 'fragrel-lens-library';
/** Version of the file layout; bump it with a migration below when the layout changes. */
export const LIBRARY_FILE_VERSION = 1;
/** File name extension the app offers and accepts. */
export const LIBRARY_FILE_EXTENSION = '.fragrel.zip';

export interface LibraryManifest {
  format: typeof LIBRARY_FILE_FORMAT;
  version: number;
  /** The store's binary layout of fragments, vectors and relations (schema.ts). */
  serializationVersion: number;
  exportedAt: string;
  /** 'library' carries settings too; 'documents' only the named documents. */
  scope: 'library' | 'documents';
  documents: { id: string; name: string }[];
}

/** Why a file cannot be read, in words a person can act on. */
export class LibraryFileError extends Error {
  override name = 'LibraryFileError';
}

/**
 * Migrations of older file layouts, by the version they start from, each returning the next
 * version's manifest and records. Version 1 is the first layout, so there are none yet.
 */
const FILE_MIGRATIONS: Record<
  number,
  (m: LibraryManifest, r: unknown) => { manifest: LibraryManifest; records: unknown }
> = {};

type BinRef = { $bin: string };

function isBinRef(v: unknown): v is BinRef {
  return (
    typeof v === 'object' &&
    v !== null &&
    typeof (v as BinRef).$bin === 'string' &&
    Object.keys(v).length === 1
  );
}

/** Write a library's records as one file. */
export function packLibrary(
  records: LibraryRecords,
  scope: LibraryManifest['scope'],
  now: Date = new Date(),
): Uint8Array {
  const files: Zippable = {};
  let bins = 0;
  // Binary fields become files; everything else stays JSON.
  const out = (value: unknown): unknown => {
    if (value instanceof ArrayBuffer) {
      const path = `bin/${bins++}.bin`;
      files[path] = [new Uint8Array(value.slice(0)), { level: 0 }];
      return { $bin: path };
    }
    if (ArrayBuffer.isView(value)) {
      throw new Error('FragRel carry: stored records hold ArrayBuffers, not typed-array views.');
    }
    if (Array.isArray(value)) return value.map(out);
    if (value && typeof value === 'object') {
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, out(v)]));
    }
    return value;
  };
  const sources = records.sources.map((s, i) => {
    const path = `sources/${i}.txt`;
    files[path] = strToU8(s.text);
    return { docId: s.docId, text: { $bin: path } };
  });
  const body = out({ ...records, sources: [] }) as Record<string, unknown>;
  body.sources = sources;
  const manifest: LibraryManifest = {
    format: LIBRARY_FILE_FORMAT,
    version: LIBRARY_FILE_VERSION,
    serializationVersion: SERIALIZATION_VERSION,
    exportedAt: now.toISOString(),
    scope,
    documents: records.documents.map((d) => ({ id: d.id, name: d.name })),
  };
  files['manifest.json'] = strToU8(JSON.stringify(manifest, null, 2));
  files['records.json'] = strToU8(JSON.stringify(body));
  return zipSync(files, { level: 6 });
}

function fail(message: string): never {
  throw new LibraryFileError(message);
}

function parseJson(files: Record<string, Uint8Array>, path: string): unknown {
  const bytes = files[path] ?? fail(`The file has no ${path}; it is not a FragRel Lens library.`);
  try {
    return JSON.parse(strFromU8(bytes));
  } catch {
    return fail(`The file's ${path} is damaged (not valid JSON).`);
  }
}

/** Read a library file back into records, or throw a LibraryFileError saying what is wrong. */
export function unpackLibrary(bytes: Uint8Array): {
  manifest: LibraryManifest;
  records: LibraryRecords;
} {
  let files: Record<string, Uint8Array>;
  try {
    files = unzipSync(bytes);
  } catch {
    fail('The file is not a readable zip: it is damaged, cut short, or not a library export.');
  }
  let manifest = parseJson(files, 'manifest.json') as LibraryManifest;
  if (!manifest || manifest.format !== LIBRARY_FILE_FORMAT) {
    fail('The file is not a FragRel Lens library export (its manifest names another format).');
  }
  if (!Number.isInteger(manifest.version) || manifest.version < 1) {
    fail(`The file names an unknown layout version (${String(manifest.version)}).`);
  }
  if (manifest.version > LIBRARY_FILE_VERSION) {
    fail(
      `The file was written by a newer FragRel Lens (layout version ${manifest.version}; this one reads up to ${LIBRARY_FILE_VERSION}). Update the app, or export again from the newer one as an older layout.`,
    );
  }
  let raw = parseJson(files, 'records.json');
  for (let v = manifest.version; v < LIBRARY_FILE_VERSION; v++) {
    const step = FILE_MIGRATIONS[v] ?? fail(`No migration from layout version ${v}.`);
    ({ manifest, records: raw } = step(manifest, raw));
  }
  if (manifest.serializationVersion !== SERIALIZATION_VERSION) {
    fail(
      `The file's index data use binary layout ${manifest.serializationVersion}, this app ${SERIALIZATION_VERSION}; import the documents' books instead and index them here.`,
    );
  }

  const used = new Set<string>();
  const back = (value: unknown, text = false): unknown => {
    if (isBinRef(value)) {
      const part = files[value.$bin] ?? fail(`The file lacks ${value.$bin}; it is incomplete.`);
      used.add(value.$bin);
      if (text) return strFromU8(part);
      const buffer = new ArrayBuffer(part.byteLength);
      new Uint8Array(buffer).set(part);
      return buffer;
    }
    if (Array.isArray(value)) return value.map((v) => back(v));
    if (value && typeof value === 'object') {
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, back(v)]));
    }
    return value;
  };
  const body = raw as Record<string, unknown>;
  const lists = ['documents', 'sources', 'fragments', 'vectors', 'relations', 'settings'] as const;
  for (const key of lists) {
    if (!Array.isArray(body?.[key])) fail(`The file's records.json lacks its ${key} list.`);
  }
  const records = {
    ...(back({ ...body, sources: [] }) as LibraryRecords),
    sources: (body.sources as { docId: unknown; text: unknown }[]).map((s) => ({
      docId: String(s.docId),
      text: back(s.text, true) as string,
    })),
  };
  checkRecords(records);
  return { manifest, records };
}

/** Every record belongs to a document of the file and its arrays have the sizes it says. */
function checkRecords(r: LibraryRecords): void {
  const ids = new Set<string>();
  for (const d of r.documents) {
    if (typeof d?.id !== 'string' || typeof d.name !== 'string' || typeof d.sha256 !== 'string') {
      fail('A document record of the file is damaged (no id, name or hash).');
    }
    ids.add(d.id);
  }
  const own = (docId: unknown, what: string) => {
    if (typeof docId !== 'string' || !ids.has(docId)) {
      fail(`The file holds ${what} of a document it does not carry.`);
    }
  };
  const bytes = (b: unknown, n: number, what: string) => {
    if (!(b instanceof ArrayBuffer) || b.byteLength !== n) {
      fail(`The file's ${what} has the wrong size; the file is damaged.`);
    }
  };
  for (const s of r.sources) own(s.docId, 'a source');
  for (const f of r.fragments) {
    own(f.docId, 'fragments');
    bytes(f.starts, 4 * f.count, 'fragment starts');
    bytes(f.ends, 4 * f.count, 'fragment ends');
    if (f.words !== undefined) bytes(f.words, 4 * f.count, 'fragment word counts');
    const doc = r.documents.find((d) => d.id === f.docId)!;
    if (doc.fragmentCount !== f.count) fail(`“${doc.name}” has damaged fragments in the file.`);
  }
  for (const v of r.vectors) {
    own(v.docId, 'vectors');
    bytes(v.data, 4 * v.dim * v.count, 'vectors');
  }
  for (const rel of r.relations) {
    own(rel.docId, 'a relation');
    if (rel.csr) {
      bytes(rel.csr.rowPtr, 4 * (rel.size + 1), 'relation rows');
      const nnz = new Uint32Array(rel.csr.rowPtr)[rel.size];
      bytes(rel.csr.col, 4 * nnz, 'relation columns');
      bytes(rel.csr.weight, 4 * nnz, 'relation weights');
    }
  }
  for (const d of r.documents) {
    if (!r.sources.some((s) => s.docId === d.id))
      fail(`“${d.name}” has no source text in the file.`);
    if (!r.fragments.some((f) => f.docId === d.id))
      fail(`“${d.name}” has no fragments in the file.`);
  }
}
