/**
 * @file Conversions between the shapes the rest of the app uses (typed arrays, `Fragment[]`,
 * `CsrMatrix`) and the records the store keeps (ArrayBuffers, parallel arrays). Pure functions,
 * no IndexedDB: tested directly.
 */
import type { CsrMatrix, Fragment, VectorSet } from '../core/types';
import type { FragmentOptions } from '../core/options';
import {
  SERIALIZATION_VERSION,
  type FragmentsRecord,
  type RelationParamValue,
  type RelationParams,
  type RelationRecord,
  type VectorsRecord,
} from './schema';

/** The fragments of one document as parallel arrays; fragment i has ordinal i. */
export interface FragmentTable {
  count: number;
  starts: Uint32Array;
  ends: Uint32Array;
  /** '' where a fragment has no label. */
  labels: string[];
  /** `Fragment.words` per fragment; present only when every fragment has it. */
  words?: Uint32Array;
}

/** Pack `Fragment[]` (ordinals 0..n-1, in order) into a {@link FragmentTable}. */
export function packFragments(fragments: readonly Fragment[]): FragmentTable {
  const count = fragments.length;
  const starts = new Uint32Array(count);
  const ends = new Uint32Array(count);
  const labels = new Array<string>(count);
  const words = fragments.every((f) => f.words !== undefined) ? new Uint32Array(count) : undefined;
  for (let i = 0; i < count; i++) {
    const f = fragments[i];
    if (f.ordinal !== i) {
      throw new Error(`FragRel store: fragment at position ${i} has ordinal ${f.ordinal}.`);
    }
    starts[i] = f.start;
    ends[i] = f.end;
    labels[i] = f.label ?? '';
    if (words) words[i] = f.words!;
  }
  const table: FragmentTable = { count, starts, ends, labels };
  if (words && count > 0) table.words = words;
  return table;
}

/** Unpack a {@link FragmentTable} into `Fragment[]` of document `docId`. */
export function unpackFragments(docId: string, table: FragmentTable): Fragment[] {
  const out = new Array<Fragment>(table.count);
  for (let i = 0; i < table.count; i++) {
    const f: Fragment = { docId, ordinal: i, start: table.starts[i], end: table.ends[i] };
    if (table.labels[i]) f.label = table.labels[i];
    if (table.words) f.words = table.words[i];
    out[i] = f;
  }
  return out;
}

/**
 * The bytes of `view` as an ArrayBuffer IndexedDB can store. A view that spans all of a plain
 * ArrayBuffer gives that buffer (the put clones it, so the caller keeps its own); a partial view,
 * or one over a SharedArrayBuffer (which storage refuses), gives a copy of just its bytes.
 */
export function storableBuffer(view: ArrayBufferView): ArrayBuffer {
  const buffer = view.buffer;
  if (
    buffer instanceof ArrayBuffer &&
    view.byteOffset === 0 &&
    view.byteLength === buffer.byteLength
  ) {
    return buffer;
  }
  const copy = new ArrayBuffer(view.byteLength);
  new Uint8Array(copy).set(new Uint8Array(buffer, view.byteOffset, view.byteLength));
  return copy;
}

/** Whether `buffer` holds exactly `count` elements of `bytesPer` bytes. */
function holds(buffer: unknown, count: number, bytesPer: number): buffer is ArrayBuffer {
  return buffer instanceof ArrayBuffer && buffer.byteLength === count * bytesPer;
}

export function encodeFragments(docId: string, table: FragmentTable): FragmentsRecord {
  if (
    table.starts.length !== table.count ||
    table.ends.length !== table.count ||
    table.labels.length !== table.count ||
    (table.words !== undefined && table.words.length !== table.count)
  ) {
    throw new Error(
      `FragRel store: fragments of "${docId}" have ${table.count} entries but arrays of lengths ${table.starts.length}, ${table.ends.length}, ${table.labels.length}.`,
    );
  }
  const record: FragmentsRecord = {
    docId,
    serializationVersion: SERIALIZATION_VERSION,
    count: table.count,
    starts: storableBuffer(table.starts),
    ends: storableBuffer(table.ends),
    labels: [...table.labels],
  };
  if (table.words) record.words = storableBuffer(table.words);
  return record;
}

/** The stored fragments as views over the stored buffers, or undefined if unreadable. */
export function decodeFragments(record: FragmentsRecord | undefined): FragmentTable | undefined {
  if (!record || record.serializationVersion !== SERIALIZATION_VERSION) return undefined;
  const { count } = record;
  if (!holds(record.starts, count, 4) || !holds(record.ends, count, 4)) return undefined;
  if (!Array.isArray(record.labels) || record.labels.length !== count) return undefined;
  const table: FragmentTable = {
    count,
    starts: new Uint32Array(record.starts),
    ends: new Uint32Array(record.ends),
    labels: record.labels,
  };
  if (record.words !== undefined) {
    if (!holds(record.words, count, 4)) return undefined;
    table.words = new Uint32Array(record.words);
  }
  return table;
}

export function encodeVectors(
  docId: string,
  embedderId: string,
  vectors: VectorSet,
  fragmentOptions: FragmentOptions,
): VectorsRecord {
  if (vectors.data.length !== vectors.dim * vectors.count) {
    throw new Error(
      `FragRel store: vectors "${embedderId}" of "${docId}" claim ${vectors.count} x ${vectors.dim} but hold ${vectors.data.length} values.`,
    );
  }
  return {
    docId,
    embedderId,
    serializationVersion: SERIALIZATION_VERSION,
    dim: vectors.dim,
    count: vectors.count,
    data: storableBuffer(vectors.data),
    fragmentOptions: { ...fragmentOptions },
  };
}

export function decodeVectors(record: VectorsRecord | undefined): VectorSet | undefined {
  if (!record || record.serializationVersion !== SERIALIZATION_VERSION) return undefined;
  if (!holds(record.data, record.count * record.dim, 4)) return undefined;
  return { dim: record.dim, count: record.count, data: new Float32Array(record.data) };
}

/** A relation as handed to the store: CSR matrix, or none for an implicit relation. */
export interface RelationInput {
  kind: string;
  params: RelationParams;
  /** Number of fragments; required when `matrix` is absent. */
  size?: number;
  matrix?: CsrMatrix;
  /** One value per fragment (the code relation's reference counts, RelationRecord.references). */
  references?: Float32Array;
  /** One string per fragment (the code relation's scope names, RelationRecord.scopes). */
  scopes?: readonly string[];
}

/** A stored relation, read back. `matrix` is absent for implicit relations. */
export interface StoredRelation {
  kind: string;
  paramsKey: string;
  params: RelationParams;
  size: number;
  matrix?: CsrMatrix;
  references?: Float32Array;
  scopes?: string[];
}

function checkCsr(where: string, m: CsrMatrix): void {
  const nnz = m.rowPtr.length === m.size + 1 ? m.rowPtr[m.size] : -1;
  if (nnz < 0 || m.col.length !== nnz || m.weight.length !== nnz) {
    throw new Error(
      `FragRel store: relation ${where} is not a CSR matrix of size ${m.size} (rowPtr ${m.rowPtr.length}, col ${m.col.length}, weight ${m.weight.length}).`,
    );
  }
}

export function encodeRelation(docId: string, input: RelationInput): RelationRecord {
  const paramsKey = relationParamsKey(input.params);
  const where = `"${input.kind}" ${paramsKey} of "${docId}"`;
  const m = input.matrix;
  if (m) checkCsr(where, m);
  const size = m ? m.size : input.size;
  if (size === undefined || (input.size !== undefined && input.size !== size)) {
    throw new Error(`FragRel store: relation ${where} needs a size matching its matrix.`);
  }
  if (input.references && input.references.length !== size) {
    throw new Error(
      `FragRel store: relation ${where} has ${input.references.length} reference counts for ${size} fragments.`,
    );
  }
  if (input.scopes && input.scopes.length !== size) {
    throw new Error(
      `FragRel store: relation ${where} has ${input.scopes.length} scope names for ${size} fragments.`,
    );
  }
  return {
    docId,
    kind: input.kind,
    paramsKey,
    params: JSON.parse(paramsKey) as RelationParams,
    serializationVersion: SERIALIZATION_VERSION,
    size,
    csr: m
      ? {
          rowPtr: storableBuffer(m.rowPtr),
          col: storableBuffer(m.col),
          weight: storableBuffer(m.weight),
        }
      : null,
    ...(input.references ? { references: storableBuffer(input.references) } : {}),
    ...(input.scopes ? { scopes: [...input.scopes] } : {}),
  };
}

export function decodeRelation(record: RelationRecord | undefined): StoredRelation | undefined {
  if (!record || record.serializationVersion !== SERIALIZATION_VERSION) return undefined;
  const out: StoredRelation = {
    kind: record.kind,
    paramsKey: record.paramsKey,
    params: record.params,
    size: record.size,
  };
  if (record.csr) {
    const { rowPtr, col, weight } = record.csr;
    if (!holds(rowPtr, record.size + 1, 4)) return undefined;
    const ptr = new Uint32Array(rowPtr);
    const nnz = ptr[record.size];
    if (!holds(col, nnz, 4) || !holds(weight, nnz, 4)) return undefined;
    out.matrix = {
      size: record.size,
      rowPtr: ptr,
      col: new Uint32Array(col),
      weight: new Float32Array(weight),
    };
  }
  // Damaged counts are dropped, not the relation: retrieval then walks unweighted edges.
  if (record.references && holds(record.references, record.size, 4)) {
    out.references = new Float32Array(record.references);
  }
  // Likewise scope names that do not fit: BM25 then reads the windows' text alone.
  if (
    Array.isArray(record.scopes) &&
    record.scopes.length === record.size &&
    record.scopes.every((x) => typeof x === 'string')
  ) {
    out.scopes = record.scopes;
  }
  return out;
}

function canonical(value: RelationParamValue | undefined, path: string): string {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'boolean':
      return String(value);
    case 'number':
      if (!Number.isFinite(value)) {
        throw new Error(
          `FragRel store: relation parameter "${path}" is ${value}; use a finite number.`,
        );
      }
      // -0 and 0 are the same parameter; JSON prints the shortest round-tripping form.
      return value === 0 ? '0' : JSON.stringify(value);
    case 'object': {
      if (Array.isArray(value)) {
        return `[${value.map((v, i) => canonical(v, `${path}[${i}]`)).join(',')}]`;
      }
      const proto = Object.getPrototypeOf(value) as unknown;
      if (proto !== Object.prototype && proto !== null) {
        throw new Error(`FragRel store: relation parameter "${path}" must be a plain object.`);
      }
      const keys = Object.keys(value)
        .filter((k) => value[k] !== undefined)
        .sort();
      const body = keys.map(
        (k) => `${JSON.stringify(k)}:${canonical(value[k], path ? `${path}.${k}` : k)}`,
      );
      return `{${body.join(',')}}`;
    }
    default:
      throw new Error(
        `FragRel store: relation parameter "${path}" has type ${typeof value}; use strings, finite numbers, booleans, null, arrays or plain objects.`,
      );
  }
}

/**
 * A stable string for a relation's parameters: JSON with object keys sorted at every level and
 * undefined entries dropped, so `{ k: 16, embedderId: 'glove' }` and `{ embedderId: 'glove', k: 16 }`
 * give the same key and any changed value gives another. The key parses back to the params.
 *
 * ### Usage
 * ```ts
 * relationParamsKey({ wRel: 0.3 }); // '{"wRel":0.3}'
 * ```
 */
export function relationParamsKey(params: RelationParams): string {
  return canonical(params as RelationParamValue, '');
}

/** Estimated stored bytes of a string: IndexedDB keeps strings as UTF-16 in practice. */
export function textBytes(text: string): number {
  return text.length * 2;
}

export function fragmentsBytes(record: FragmentsRecord): number {
  let bytes = record.starts.byteLength + record.ends.byteLength + (record.words?.byteLength ?? 0);
  for (const label of record.labels) bytes += textBytes(label);
  return bytes;
}

export function vectorsBytes(record: VectorsRecord | undefined): number {
  return record ? record.data.byteLength : 0;
}

export function relationBytes(record: RelationRecord | undefined): number {
  if (!record) return 0;
  const csr = record.csr;
  const buffers =
    (csr ? csr.rowPtr.byteLength + csr.col.byteLength + csr.weight.byteLength : 0) +
    (record.references?.byteLength ?? 0) +
    (record.scopes ?? []).reduce((n, x) => n + textBytes(x), 0);
  return buffers + textBytes(record.paramsKey);
}
