import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Sha256, sha256Hex, sha256Js } from './sha256';

const nodeSha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

describe('sha256', () => {
  it('matches the FIPS 180-4 examples', () => {
    expect(hex(sha256Js(new TextEncoder().encode('abc')))).toBe(
      'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
    );
    expect(hex(sha256Js(new Uint8Array(0)))).toBe(
      'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
    );
  });

  it('the JavaScript fallback agrees with Node at every padding boundary and at random', () => {
    for (const n of [1, 55, 56, 57, 63, 64, 65, 119, 120, 128, 1000]) {
      const data = new Uint8Array(n).map((_, i) => (i * 31 + n) & 255);
      expect(hex(sha256Js(data))).toBe(nodeSha256(data));
    }
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (data) => {
        expect(hex(sha256Js(data))).toBe(nodeSha256(data));
      }),
    );
  });

  afterEach(() => {
    vi.unstubAllGlobals();
  });

  it('sha256Hex falls back to JavaScript where Web Crypto is missing (insecure contexts)', async () => {
    const data = new TextEncoder().encode('served over plain http');
    vi.stubGlobal('crypto', undefined);
    expect(globalThis.crypto).toBeUndefined();
    expect(await sha256Hex(data)).toBe(nodeSha256(data));
  });

  it('sha256Hex uses Web Crypto and gives lower-case hex', async () => {
    const data = new TextEncoder().encode('FragRel');
    expect(await sha256Hex(data)).toBe(nodeSha256(data));
  });
});

describe('Sha256 (fed in pieces)', () => {
  it('agrees with Node on data cut at random, across block and padding boundaries', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 400 }),
        fc.array(fc.nat({ max: 400 }), { maxLength: 8 }),
        (data, cuts) => {
          const hash = new Sha256();
          let from = 0;
          for (const at of [...cuts, data.length]
            .map((c) => Math.min(c, data.length))
            .sort((a, b) => a - b)) {
            hash.update(data.subarray(from, at));
            from = at;
          }
          expect(hex(hash.digest())).toBe(nodeSha256(data));
        },
      ),
    );
  });

  it('hashes a megabyte fed in 64 KiB and odd-sized pieces as one', () => {
    const data = new Uint8Array(1 << 20).map((_, i) => (i * 2654435761) >>> 24);
    const hash = new Sha256();
    for (let at = 0; at < data.length; at += 65_537) hash.update(data.subarray(at, at + 65_537));
    expect(hex(hash.digest())).toBe(nodeSha256(data));
  });
});
