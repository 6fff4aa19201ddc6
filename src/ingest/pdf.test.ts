import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { isAbortError } from '../core/abort';
import { ingestFiles } from './ingest';
import { pageText } from './pdf';
import { loadPdfjsNode } from './pdf-node';
import {
  buildPdf,
  encodeWindows1252,
  fileOf,
  latin1,
  makeTextPdf,
  textPdfObjects,
} from './testing/fixtures';

/** A line in Windows-1252 (WinAnsiEncoding) bytes, spelled as a Latin-1 string for the PDF. */
function winAnsi(line: string): string {
  return String.fromCharCode(...encodeWindows1252(line));
}

function md5(...parts: Uint8Array[]): Uint8Array {
  const h = createHash('md5');
  for (const p of parts) h.update(p);
  return new Uint8Array(h.digest());
}

function rc4(key: Uint8Array, data: Uint8Array): Uint8Array {
  const s = Array.from({ length: 256 }, (_, i) => i);
  for (let i = 0, j = 0; i < 256; i++) {
    j = (j + s[i] + key[i % key.length]) & 255;
    [s[i], s[j]] = [s[j], s[i]];
  }
  const out = new Uint8Array(data.length);
  for (let k = 0, i = 0, j = 0; k < data.length; k++) {
    i = (i + 1) & 255;
    j = (j + s[i]) & 255;
    [s[i], s[j]] = [s[j], s[i]];
    out[k] = data[k] ^ s[(s[i] + s[j]) & 255];
  }
  return out;
}

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

/**
 * A PDF encrypted by the standard security handler (revision 2, 40-bit RC4, PDF 1.7 section 7.6)
 * with a user password: it cannot be opened without the password.
 */
function makeEncryptedPdf(lines: string[], userPassword: string, ownerPassword: string) {
  const PAD = new Uint8Array([
    0x28, 0xbf, 0x4e, 0x5e, 0x4e, 0x75, 0x8a, 0x41, 0x64, 0x00, 0x4e, 0x56, 0xff, 0xfa, 0x01, 0x08,
    0x2e, 0x2e, 0x00, 0xb6, 0xd0, 0x68, 0x3e, 0x80, 0x2f, 0x0c, 0xa9, 0xfe, 0x64, 0x53, 0x69, 0x7a,
  ]);
  const pad = (pw: string) => {
    const out = new Uint8Array(32);
    const bytes = latin1(pw).subarray(0, 32);
    out.set(bytes);
    out.set(PAD.subarray(0, 32 - bytes.length), bytes.length);
    return out;
  };
  const id = new Uint8Array(16).map((_, i) => i * 7 + 3);
  const permissions = new Uint8Array([0xfc, 0xff, 0xff, 0xff]); // P = -4, little-endian
  const owner = rc4(md5(pad(ownerPassword)).subarray(0, 5), pad(userPassword)); // Algorithm 3
  const key = md5(pad(userPassword), owner, permissions, id).subarray(0, 5); // Algorithm 2
  const user = rc4(key, PAD); // Algorithm 4

  const { objects, contentIds } = textPdfObjects([lines]);
  const contentId = contentIds[0];
  const ops = latin1(objects[contentId - 1].replace(/^[^]*?stream\n([^]*)\nendstream$/, '$1'));
  const objectKey = md5(key, new Uint8Array([contentId, 0, 0, 0, 0])).subarray(0, 10);
  const body: (string | Uint8Array[])[] = [...objects];
  body[contentId - 1] = [
    latin1(`<< /Length ${ops.length} >>\nstream\n`),
    rc4(objectKey, ops),
    latin1('\nendstream'),
  ];
  body.push(`<< /Filter /Standard /V 1 /R 2 /O <${hex(owner)}> /U <${hex(user)}> /P -4 >>`);
  const encryptId = body.length;
  return buildPdf(body, `/Encrypt ${encryptId} 0 R /ID [<${hex(id)}> <${hex(id)}>] `);
}

describe('PDF fixtures', () => {
  it('writes xref offsets that point at each object', () => {
    const pdf = makeTextPdf([['Hello']]);
    const text = new TextDecoder('latin1').decode(pdf);
    const startxref = Number(/startxref\n(\d+)/.exec(text)?.[1]);
    expect(text.slice(startxref, startxref + 4)).toBe('xref');
    const rows = text.slice(startxref).match(/^(\d{10}) 00000 n $/gm) ?? [];
    expect(rows).toHaveLength(5);
    rows.forEach((row, i) => {
      const offset = Number(row.slice(0, 10));
      expect(text.slice(offset, offset + `${i + 1} 0 obj`.length)).toBe(`${i + 1} 0 obj`);
    });
  });
});

describe('pageText', () => {
  it('joins items and breaks lines where pdf.js reports an end of line', () => {
    const items = [
      { str: 'First', hasEOL: false },
      { str: ' line', hasEOL: true },
      { type: 'beginMarkedContent' },
      { str: 'Second\u0000 line', hasEOL: true },
      { str: '', hasEOL: true },
    ];
    expect(pageText(items)).toBe('First line\nSecond line');
  });
});

describe('PDF ingestion (pdf.js legacy build in Node)', () => {
  it('reads the text of each page, line by line, with a section per page with text', async () => {
    const pdf = makeTextPdf([
      ['It was the best of times,', winAnsi('it was the worst of times — “quoted”, café.')],
      [],
      ['The third page.'],
    ]);
    const { documents, errors } = await ingestFiles([fileOf('two-cities.pdf', pdf)], {
      pdfjs: loadPdfjsNode,
    });
    expect(errors).toEqual([]);
    const [doc] = documents;
    expect(doc.format).toBe('pdf');
    expect(doc.kind).toBe('prose');
    expect(doc.text).toBe(
      'It was the best of times,\nit was the worst of times — “quoted”, café.\n\nThe third page.',
    );
    expect(doc.sections).toEqual([
      { title: 'Page 1', start: 0, end: doc.text.indexOf('\n\n'), kind: 'page' },
      {
        title: 'Page 3',
        start: doc.text.indexOf('The third'),
        end: doc.text.length,
        kind: 'page',
      },
    ]);
    expect(doc.bytes).toBe(pdf.length);
    expect(doc.sha256).toBe(createHash('sha256').update(pdf).digest('hex'));
    expect(doc.encoding).toBeUndefined();
  });

  it("reports pages read through onProgress for a PDF's pages", async () => {
    const pdf = makeTextPdf([['one'], ['two'], ['three']]);
    const seen: unknown[] = [];
    await ingestFiles([fileOf('p.pdf', pdf)], {
      pdfjs: loadPdfjsNode,
      onProgress: (p) => seen.push(p),
    });
    expect(seen).toEqual([
      { stage: 'read', done: 0, total: 1, file: 'p.pdf' },
      { stage: 'read', done: 0, total: 1, file: 'p.pdf', pages: { done: 0, total: 3 } },
      { stage: 'read', done: 0, total: 1, file: 'p.pdf', pages: { done: 1, total: 3 } },
      { stage: 'read', done: 0, total: 1, file: 'p.pdf', pages: { done: 2, total: 3 } },
      { stage: 'read', done: 0, total: 1, file: 'p.pdf', pages: { done: 3, total: 3 } },
      { stage: 'read', done: 1, total: 1 },
    ]);
  });

  it("says 'pdf-no-text' for a PDF whose pages have no text (a scan)", async () => {
    const pdf = makeTextPdf([[], []]);
    const { documents, errors } = await ingestFiles([fileOf('scan.pdf', pdf)], {
      pdfjs: loadPdfjsNode,
    });
    expect(documents).toEqual([]);
    expect(errors).toEqual([
      {
        file: 'scan.pdf',
        code: 'pdf-no-text',
        message:
          '“scan.pdf” has no text layer (it is probably a scanned image). Run it through OCR ' +
          'first, or drop a text version.',
      },
    ]);
  });

  it("says 'pdf-encrypted' for a password-protected PDF (which opens with its password)", async () => {
    const pdf = makeEncryptedPdf(['Secret text.'], 'secret', 'owner');
    // The fixture is a real encrypted PDF: pdf.js reads it given the password.
    const pdfjs = await loadPdfjsNode();
    const task = pdfjs.getDocument({ data: pdf.slice(), password: 'secret', verbosity: 0 } as {
      data: Uint8Array;
    });
    const doc = await task.promise;
    const content = await (await doc.getPage(1)).getTextContent();
    expect(pageText(content.items)).toBe('Secret text.');
    await task.destroy();

    const { documents, errors } = await ingestFiles([fileOf('locked.pdf', pdf)], {
      pdfjs: loadPdfjsNode,
    });
    expect(documents).toEqual([]);
    expect(errors).toHaveLength(1);
    expect(errors[0].code).toBe('pdf-encrypted');
    expect(errors[0].message).toMatch(/^“locked\.pdf” is protected by a password\. /);
  });

  it("says 'decode' for a file named .pdf that is not a PDF", async () => {
    const { errors } = await ingestFiles([fileOf('notes.pdf', 'just some words, not a PDF')], {
      pdfjs: loadPdfjsNode,
    });
    expect(errors).toHaveLength(1);
    expect(errors[0].code).toBe('decode');
    expect(errors[0].message).toMatch(/^“notes\.pdf” is not a readable PDF \(.+\)\. Try /);
  });

  it('reports a PDF reader that fails to load as an error of that file only', async () => {
    const { documents, errors } = await ingestFiles(
      [fileOf('a.pdf', makeTextPdf([['x']])), fileOf('b.txt', 'still read')],
      { pdfjs: () => Promise.reject(new Error('network down')) },
    );
    expect(documents.map((d) => d.name)).toEqual(['b.txt']);
    expect(errors[0]).toMatchObject({ file: 'a.pdf', code: 'decode' });
    expect(errors[0].message).toContain('network down');
  });

  it('stops with an AbortError when cancelled between pages', async () => {
    const pages = Array.from({ length: 20 }, (_, i) => [`Page ${i + 1} text.`]);
    const controller = new AbortController();
    let pagesAfterAbort = 0;
    const run = ingestFiles([fileOf('long.pdf', makeTextPdf(pages))], {
      pdfjs: loadPdfjsNode,
      signal: controller.signal,
      onProgress: (p) => {
        if (controller.signal.aborted && p.pages) pagesAfterAbort++;
        if (p.pages?.done === 2) controller.abort();
      },
    });
    const error = await run.then(
      () => null,
      (e: unknown) => e,
    );
    expect(isAbortError(error)).toBe(true);
    expect(pagesAfterAbort).toBe(0);
  });
});
