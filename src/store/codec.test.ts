import { describe, expect, it } from 'vitest';
import {
  decodeFragments,
  decodeRelation,
  encodeFragments,
  encodeRelation,
  packFragments,
  relationParamsKey,
  storableBuffer,
  unpackFragments,
} from './codec';
import { formatBytes } from './errors';
import { SERIALIZATION_VERSION } from './schema';
import { sampleCsr, sampleText } from './testing';

describe('relationParamsKey', () => {
  it('is the same for the same params in any key order, at every level', () => {
    const a = relationParamsKey({
      k: 16,
      embedderId: 'glove',
      extra: { b: 1, a: [2, { y: 1, x: 0 }] },
    });
    const b = relationParamsKey({
      extra: { a: [2, { x: 0, y: 1 }], b: 1 },
      embedderId: 'glove',
      k: 16,
    });
    expect(a).toBe(b);
    expect(a).toBe('{"embedderId":"glove","extra":{"a":[2,{"x":0,"y":1}],"b":1},"k":16}');
  });

  it('differs when any value differs, and keeps array order', () => {
    const keys = new Set([
      relationParamsKey({ k: 16 }),
      relationParamsKey({ k: 8 }),
      relationParamsKey({ k: '16' }),
      relationParamsKey({ k: 16, embedderId: 'glove' }),
      relationParamsKey({ order: [1, 2] }),
      relationParamsKey({ order: [2, 1] }),
      relationParamsKey({ flag: true }),
      relationParamsKey({ flag: null }),
    ]);
    expect(keys.size).toBe(8);
  });

  it('drops undefined entries, folds -0 into 0, and parses back to the params', () => {
    expect(relationParamsKey({ wRel: 0.3, unused: undefined })).toBe('{"wRel":0.3}');
    expect(relationParamsKey({ x: -0 })).toBe(relationParamsKey({ x: 0 }));
    const params = { wRel: 0.1 + 0.2, name: 'semantic "kNN"', nested: { list: [1e-7, -3] } };
    expect(JSON.parse(relationParamsKey(params))).toEqual(params);
  });

  it('refuses values without a stable form, naming the parameter', () => {
    expect(() => relationParamsKey({ k: Number.NaN })).toThrow(/"k" is NaN/);
    expect(() => relationParamsKey({ a: { b: Infinity } })).toThrow(/"a.b"/);
    expect(() => relationParamsKey({ when: new Date(0) as never })).toThrow(/plain object/);
    expect(() => relationParamsKey({ f: (() => 1) as never })).toThrow(/type function/);
  });
});

describe('fragments', () => {
  it('pack and unpack round-trip Fragment[], labels included', () => {
    const { fragments } = sampleText('a', 7);
    const table = packFragments(fragments);
    expect(table.count).toBe(7);
    expect(table.labels[0]).toBe('Chapter 1');
    expect(table.labels[1]).toBe('');
    expect(unpackFragments('a', table)).toEqual(fragments);
  });

  it('keeps word counts only when every fragment has one', () => {
    const { fragments } = sampleText('a', 3);
    expect(packFragments(fragments).words).toEqual(new Uint32Array([5, 5, 5]));
    const partial = fragments.map((f, i) => (i === 1 ? { ...f, words: undefined } : f));
    expect(packFragments(partial).words).toBeUndefined();
    expect(unpackFragments('a', packFragments(partial))[0]).not.toHaveProperty('words');
  });

  it('refuses fragments out of ordinal order', () => {
    const { fragments } = sampleText('a', 3);
    expect(() => packFragments([fragments[1], fragments[0], fragments[2]])).toThrow(/ordinal 1/);
  });

  it('decodes to views over the stored buffers and rejects another layout version', () => {
    const record = encodeFragments('a', packFragments(sampleText('a', 5).fragments));
    const cloned = structuredClone(record);
    const table = decodeFragments(cloned)!;
    expect(table.starts.buffer).toBe(cloned.starts);
    expect(table.ends.buffer).toBe(cloned.ends);
    expect(
      decodeFragments({ ...cloned, serializationVersion: SERIALIZATION_VERSION + 1 }),
    ).toBeUndefined();
    expect(decodeFragments({ ...cloned, count: 6 })).toBeUndefined();
  });
});

describe('relations', () => {
  it('encode and decode a CSR matrix; reject a malformed one', () => {
    const m = sampleCsr(5);
    const record = encodeRelation('a', { kind: 'semantic', params: { k: 2 }, matrix: m });
    const back = decodeRelation(structuredClone(record))!;
    expect(back.matrix!.rowPtr).toEqual(m.rowPtr);
    expect(back.matrix!.col).toEqual(m.col);
    expect(back.matrix!.weight).toEqual(m.weight);
    expect(() =>
      encodeRelation('a', {
        kind: 'semantic',
        params: {},
        matrix: { ...m, col: m.col.subarray(1) },
      }),
    ).toThrow(/not a CSR matrix/);
    expect(() => encodeRelation('a', { kind: 'context', params: {} })).toThrow(/needs a size/);
  });
});

describe('storableBuffer', () => {
  it('passes a whole ArrayBuffer through and copies partial or shared views', () => {
    const whole = new Uint32Array([1, 2, 3]);
    expect(storableBuffer(whole)).toBe(whole.buffer);
    const part = storableBuffer(whole.subarray(1));
    expect(part).not.toBe(whole.buffer);
    expect(Array.from(new Uint32Array(part))).toEqual([2, 3]);
    const shared = new Float32Array(new SharedArrayBuffer(8));
    shared[1] = 1.5;
    const copy = storableBuffer(shared);
    expect(copy).toBeInstanceOf(ArrayBuffer);
    expect(Array.from(new Float32Array(copy))).toEqual([0, 1.5]);
  });
});

describe('formatBytes', () => {
  it('prints SI units with three significant digits', () => {
    expect(formatBytes(0)).toBe('0 B');
    expect(formatBytes(999)).toBe('999 B');
    expect(formatBytes(12_345)).toBe('12.3 kB');
    expect(formatBytes(4_560_000)).toBe('4.56 MB');
    expect(formatBytes(123_000_000)).toBe('123 MB');
    expect(formatBytes(1.2e9)).toBe('1.20 GB');
  });
});
