import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { sharedDatasetPath } from '../../test/glove';
import { AbortError, isAbortError } from '../core/abort';
import * as publicApi from './index';
import { formatOf, ingestFiles, MAX_FILE_BYTES } from './ingest';
import { loadPdfjsNode } from './pdf-node';
import {
  chapterXhtml,
  encodeUtf16,
  encodeWindows1252,
  fileOf,
  makeEpub,
  makeTextPdf,
} from './testing/fixtures';
import type { IngestedDocument, IngestProgress } from './types';

/** Real books, read in place (never copied into the repository). */
const GUTENBERG = sharedDatasetPath('gutenberg');
const bookBytes = (name: string) => new Uint8Array(readFileSync(`${GUTENBERG}/${name}`));

const WAR_AND_PEACE = 'pg2600_war_and_peace.txt';
/** From ../shared/datasets/gutenberg/SOURCE.md. */
const WAR_AND_PEACE_SHA256 = 'de6e4ec476a5cd0643518d30377d566c2cd47539f9bbe7a8ff64524c76fd86aa';
/** A passage with accents, curly quotes and dashes (War and Peace, Book One, Chapter I). */
const PASSAGE = '“Well, Prince, so Genoa and Lucca are now just family estates of the Buonapartes.';

async function one(file: File, options: Parameters<typeof ingestFiles>[1] = {}) {
  const { documents, errors } = await ingestFiles([file], { pdfjs: loadPdfjsNode, ...options });
  return { doc: documents[0] as IngestedDocument | undefined, error: errors[0] };
}

function assertSectionsWellFormed(doc: IngestedDocument) {
  const problems: string[] = [];
  const open: { title: string; end: number }[] = [];
  doc.sections.forEach((s, i) => {
    if (s.start < 0 || s.end <= s.start || s.end > doc.text.length)
      problems.push(`${s.title}: span`);
    if (i > 0 && s.start < doc.sections[i - 1].start) problems.push(`${s.title}: order`);
    // Sections nest or follow each other; they never cross.
    while (open.length > 0 && open[open.length - 1].end <= s.start) open.pop();
    const outer = open[open.length - 1];
    if (outer && s.end > outer.end) problems.push(`${s.title} crosses ${outer.title}`);
    open.push(s);
  });
  expect(problems).toEqual([]);
}

describe('plain text: a real Gutenberg book', () => {
  const bytes = bookBytes(WAR_AND_PEACE);
  const original = new TextDecoder().decode(bytes);

  it('reads War and Peace (UTF-8) whole, with its books and chapters as sections', async () => {
    const { doc, error } = await one(fileOf(WAR_AND_PEACE, bytes));
    expect(error).toBeUndefined();
    expect(doc).toBeDefined();
    if (!doc) return;
    expect(doc.format).toBe('txt');
    expect(doc.encoding).toBe('utf-8');
    expect(doc.text).toBe(original);
    expect(doc.text).toContain(PASSAGE);
    expect(doc.bytes).toBe(3267483);
    expect(doc.sha256).toBe(WAR_AND_PEACE_SHA256);

    const books = doc.sections.filter((s) => /^BOOK /.test(s.title));
    const chapters = doc.sections.filter((s) => /^CHAPTER /.test(s.title));
    const epilogues = doc.sections.filter((s) => /EPILOGUE/.test(s.title));
    expect(books).toHaveLength(15);
    expect(chapters).toHaveLength(original.match(/^CHAPTER [IVXLC]+$/gm)?.length ?? -1);
    expect(epilogues.map((s) => s.title)).toEqual(['FIRST EPILOGUE: 1813 - 20', 'SECOND EPILOGUE']);
    expect(doc.sections.every((s) => s.kind === 'chapter')).toBe(true);
    expect(doc.sections[0]).toMatchObject({ title: 'BOOK ONE: 1805', start: 0 });
    expect(doc.sections[1].title).toBe('CHAPTER I');
    // Each section starts with its own heading line; Book One holds its chapters.
    for (const s of doc.sections) expect(doc.text.startsWith(s.title, s.start)).toBe(true);
    expect(doc.sections[0].end).toBeGreaterThan(doc.sections[1].end);
    expect(doc.text.slice(doc.sections[1].start, doc.sections[1].end)).toContain(PASSAGE);
    assertSectionsWellFormed(doc);
  });

  it.each([
    ['UTF-16 LE with BOM', 'utf-16le', () => encodeUtf16(original, 'le')],
    ['UTF-16 BE with BOM', 'utf-16be', () => encodeUtf16(original, 'be')],
    ['UTF-8 with BOM', 'utf-8', () => new Uint8Array([0xef, 0xbb, 0xbf, ...bytes])],
    ['Windows-1252', 'windows-1252', () => encodeWindows1252(original)],
  ])('reads the same book re-encoded as %s', async (_label, encoding, encode) => {
    const encoded = encode();
    const { doc, error } = await one(fileOf('war-and-peace.txt', encoded));
    expect(error).toBeUndefined();
    expect(doc?.encoding).toBe(encoding);
    expect(doc?.text).toBe(original);
    expect(doc?.text).toContain(PASSAGE);
    expect(doc?.text).toContain('Anna Pávlovna Schérer');
    expect(doc?.bytes).toBe(encoded.length);
    expect(doc?.sha256).toBe(createHash('sha256').update(encoded).digest('hex'));
  });

  it('normalises CRLF line endings (Dracula) and keeps every character', async () => {
    const dracula = bookBytes('pg345.txt');
    const raw = new TextDecoder().decode(dracula);
    expect(raw).toContain('\r\n');
    const { doc } = await one(fileOf('pg345.txt', dracula));
    expect(doc?.text).not.toContain('\r');
    expect(doc?.text).toBe(raw.replace(/\r\n/g, '\n'));
    expect(doc?.sections.map((s) => s.title).slice(0, 2)).toEqual(['CHAPTER II', 'CHAPTER III']);
  });

  it('marks the body between Project Gutenberg START and END lines', async () => {
    const text =
      'The Project Gutenberg eBook of A Test\r\n\r\n' +
      '*** START OF THE PROJECT GUTENBERG EBOOK A TEST ***\r\n\r\n' +
      'CHAPTER I\r\n\r\nIt begins.\r\n\r\nCHAPTER II\r\n\r\nIt ends.\r\n\r\n' +
      '*** END OF THE PROJECT GUTENBERG EBOOK A TEST ***\r\n\r\nLicence text.\r\n';
    const { doc } = await one(fileOf('test.txt', text));
    expect(doc?.text).toBe(text.replace(/\r\n/g, '\n'));
    const sections = doc?.sections ?? [];
    const slice = (i: number) => doc?.text.slice(sections[i].start, sections[i].end);
    expect(sections.map((s) => s.title)).toEqual([
      'Project Gutenberg text: A TEST',
      'CHAPTER I',
      'CHAPTER II',
    ]);
    expect(slice(0)).toBe('CHAPTER I\n\nIt begins.\n\nCHAPTER II\n\nIt ends.');
    expect(slice(2)).toBe('CHAPTER II\n\nIt ends.');
  });
});

describe('markdown and html through ingestFiles', () => {
  it('keeps markdown as is and makes its headings sections', async () => {
    const md = '# Notes\r\n\r\nIntro.\r\n\r\n## Part one\r\n\r\nText.\r\n';
    const { doc } = await one(fileOf('notes.md', md));
    expect(doc?.format).toBe('md');
    expect(doc?.text).toBe('# Notes\n\nIntro.\n\n## Part one\n\nText.\n');
    expect(doc?.sections).toEqual([
      { title: 'Notes', start: 0, end: 35, kind: 'heading' },
      { title: 'Part one', start: 17, end: 35, kind: 'heading' },
    ]);
  });

  it('reads an HTML page as visible text with h1-h3 sections, in its declared charset', async () => {
    const html =
      '<html><head><meta charset="windows-1252"><title>T</title></head><body>' +
      '<h1>Caf\xe9</h1><p>Cr\xe8me \x93br\xfbl\xe9e\x94.</p><h4>Small</h4><p>x</p></body></html>';
    const bytes = new Uint8Array([...html].map((c) => c.charCodeAt(0)));
    const { doc } = await one(fileOf('menu.htm', bytes));
    expect(doc?.format).toBe('html');
    expect(doc?.encoding).toBe('windows-1252');
    expect(doc?.text).toBe('Café\n\nCrème “brûlée”.\n\nSmall\n\nx');
    expect(doc?.sections).toEqual([
      { title: 'Café', start: 0, end: doc?.text.length, kind: 'heading' },
    ]);
  });
});

describe('bad input: errors as values with messages that say what to do', () => {
  it("says 'empty' for a file of 0 bytes", async () => {
    const { doc, error } = await one(fileOf('blank.txt', ''));
    expect(doc).toBeUndefined();
    expect(error).toEqual({
      file: 'blank.txt',
      code: 'empty',
      message: '“blank.txt” is empty (0 bytes). Check that you dropped the right file.',
    });
  });

  it("says 'empty' for a file of white space only, in any text format", async () => {
    for (const name of ['spaces.txt', 'spaces.md', 'spaces.html']) {
      const { error } = await one(fileOf(name, ' \r\n\t\n  \n'));
      expect(error?.code).toBe('empty');
      expect(error?.message).toMatch(new RegExp(`^“${name.replace('.', '\\.')}” `));
    }
    const { error } = await one(
      fileOf('scripts.html', '<script>var a = 1;</script><style>p{}</style>'),
    );
    expect(error?.code).toBe('empty');
    expect(error?.message).toContain('no visible text');
  });

  it("says 'binary' for a PNG named .txt", async () => {
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d]);
    const { error } = await one(fileOf('picture.txt', png));
    expect(error?.code).toBe('binary');
    expect(error?.message).toBe(
      '“picture.txt” does not look like text: it holds binary data (it looks like a PNG image). ' +
        'Drop the book as .txt, .md, .html, .epub or .pdf.',
    );
  });

  it("says 'binary' for control characters without NULs, and hints at a renamed PDF", async () => {
    const noise = new Uint8Array(4000).map((_, i) => (i % 3 === 0 ? 0x01 + (i % 7) : 0x61));
    expect((await one(fileOf('noise.md', noise))).error?.code).toBe('binary');

    const pdf = makeTextPdf([['x']]);
    const renamed = new Uint8Array([...pdf.subarray(0, 20), 0, ...pdf.subarray(20)]);
    const { error } = await one(fileOf('report.txt', renamed));
    expect(error?.code).toBe('binary');
    expect(error?.message).toContain('(it looks like a PDF). Rename it to end in .pdf');
  });

  it("says 'too-large' past the size limit without reading the file", async () => {
    expect(MAX_FILE_BYTES).toBe(200 * 1024 * 1024);
    const file = fileOf('big.txt', 'x'.repeat(3000));
    let read = false;
    const spy = Object.assign(file, {
      arrayBuffer: () => {
        read = true;
        return File.prototype.arrayBuffer.call(file);
      },
    });
    const { error } = await one(spy, { maxBytes: 2048 });
    expect(read).toBe(false);
    expect(error).toEqual({
      file: 'big.txt',
      code: 'too-large',
      message:
        '“big.txt” is 2.9 KB, over the limit of 2.0 KB per file. Split it into smaller files ' +
        '(by volume or chapter) and drop those.',
    });
    // A plain-text version is advice for a PDF or an EPUB only.
    expect(
      (await one(fileOf('big.pdf', 'x'.repeat(3000)), { maxBytes: 2048 })).error?.message,
    ).toBe(
      '“big.pdf” is 2.9 KB, over the limit of 2.0 KB per file. Split it into smaller files, or ' +
        'drop a plain-text version (much smaller than PDF or EPUB).',
    );
    expect(
      (await one(fileOf('ok.txt', 'x'.repeat(2048)), { maxBytes: 2048 })).error,
    ).toBeUndefined();
  });

  it('keeps a book’s own title: EPUB dc:title, a Gutenberg header’s Title: line', async () => {
    const epub = makeEpub({
      chapters: [{ id: 'c1', href: 'c1.xhtml', xhtml: chapterXhtml('One', ['Some words.']) }],
      spine: ['c1'],
      titleXml: 'Alice&apos;s Adventures &amp; Friends',
    });
    const fromEpub = await one(new File([epub], 'book.epub'));
    expect(fromEpub.error).toBeUndefined();
    expect(fromEpub.doc?.title).toBe("Alice's Adventures & Friends");
    const header =
      'The Project Gutenberg eBook of Moby Dick\r\n\r\nTitle: Moby Dick; Or, The Whale\r\n\r\n' +
      'Author: Herman Melville\r\n\r\n*** START OF THE PROJECT GUTENBERG EBOOK MOBY DICK ***\r\n\r\n';
    const fromText = await one(fileOf('pg2701.txt', `${header}Call me Ishmael. Some years ago.`));
    expect(fromText.doc?.title).toBe('Moby Dick; Or, The Whale');
    // No header: no title, the file name is shown.
    expect((await one(fileOf('notes.txt', 'Title: x\nsome notes'))).doc?.title).toBeUndefined();
  });

  it("says 'unsupported' for unknown extensions, listing the supported ones", async () => {
    const { error } = await one(fileOf('thesis.docx', 'PK\x03\x04...'));
    expect(error).toEqual({
      file: 'thesis.docx',
      code: 'unsupported',
      message:
        '“thesis.docx” is a .docx file, not a format FragRel Lens reads. Supported: .txt, ' +
        '.text, .md, .markdown, .html, .htm, .xhtml, .epub, .pdf. Save or export it as one of ' +
        'these and drop it again.',
    });
  });

  it("says 'decode' with advice when the file cannot be read from disk", async () => {
    const notReadable = () => new DOMException('The file could not be read.', 'NotReadableError');
    const gone = Object.assign(fileOf('moved.txt', 'text'), {
      arrayBuffer: () => Promise.reject(notReadable()),
      // The file is read as a stream (stream-read.ts); its first chunk fails.
      stream: () =>
        new ReadableStream<Uint8Array>({
          pull(controller) {
            controller.error(notReadable());
          },
        }),
    });
    const { error } = await one(gone);
    expect(error).toEqual({
      file: 'moved.txt',
      code: 'decode',
      message:
        '“moved.txt” could not be read from disk (The file could not be read.). Check that it ' +
        'still exists and opens in another program, then drop it again.',
    });
  });

  it('uses the MIME type for a file without an extension', async () => {
    expect(formatOf('README', 'text/markdown; charset=utf-8')).toBe('md');
    expect(formatOf('book', 'application/epub+zip')).toBe('epub');
    expect(formatOf('archive.ZIP', 'application/zip')).toBeNull();
    expect(formatOf('CHAPTER.TXT')).toBe('txt');
    const { doc } = await one(fileOf('README', '# Title\n\nBody', 'text/markdown'));
    expect(doc?.format).toBe('md');
    const { error } = await one(fileOf('Makefile', 'all:\n\techo'));
    expect(error?.code).toBe('unsupported');
  });
});

describe('several files at once', () => {
  it('brings the good ones through, in order, and reports the bad one', async () => {
    const epub = makeEpub({
      chapters: [{ id: 'c1', href: 'c1.xhtml', xhtml: chapterXhtml('One', ['Body one.']) }],
      spine: ['c1'],
    });
    const files = [
      fileOf('alice.txt', bookBytes('pg11.txt')),
      fileOf('broken.epub', epub.subarray(0, 200)),
      fileOf('notes.md', '# Notes\n\nSome notes.'),
      fileOf('book.epub', epub),
      fileOf('one-page.pdf', makeTextPdf([['A page.']])),
    ];
    const progress: IngestProgress[] = [];
    const { documents, errors } = await ingestFiles(files, {
      pdfjs: loadPdfjsNode,
      onProgress: (p) => progress.push(p),
    });
    expect(documents.map((d) => [d.name, d.format])).toEqual([
      ['alice.txt', 'txt'],
      ['notes.md', 'md'],
      ['book.epub', 'epub'],
      ['one-page.pdf', 'pdf'],
    ]);
    expect(errors.map((e) => [e.file, e.code])).toEqual([['broken.epub', 'epub-broken']]);
    expect(documents[0].sha256).toBe(
      '89a0ec3297622e5cadd32a68311c7d08a5948444274f21dd12d151672f2a0730',
    );
    expect(documents[2].text).toBe('One\n\nBody one.');
    expect(documents[3].text).toBe('A page.');
    for (const d of documents) assertSectionsWellFormed(d);

    const fileReports = progress.filter((p) => !p.pages);
    expect(fileReports.map((p) => [p.done, p.file])).toEqual([
      [0, 'alice.txt'],
      [1, 'broken.epub'],
      [2, 'notes.md'],
      [3, 'book.epub'],
      [4, 'one-page.pdf'],
      [5, undefined],
    ]);
    expect(progress.every((p) => p.stage === 'read' && p.total === 5)).toBe(true);
    const done = progress.map((p) => p.done);
    expect(done).toEqual([...done].sort((a, b) => a - b));
  });

  it('gives the same file the same hash (for dedupe), and different files different ones', async () => {
    const { documents } = await ingestFiles([
      fileOf('a.txt', 'Same words.'),
      fileOf('copy of a.txt', 'Same words.'),
      fileOf('b.txt', 'Other words.'),
    ]);
    expect(documents[0].sha256).toBe(documents[1].sha256);
    expect(documents[0].sha256).not.toBe(documents[2].sha256);
    expect(documents[0].sha256).toBe(createHash('sha256').update('Same words.').digest('hex'));
  });

  it('accepts named Blobs and calls a nameless Blob "untitled"', async () => {
    const named = Object.assign(new Blob(['Hello.'], { type: 'text/plain' }), { name: 'hi.txt' });
    const nameless = new Blob(['Hi.'], { type: 'text/plain' });
    const { documents } = await ingestFiles([named, nameless]);
    expect(documents.map((d) => [d.name, d.text])).toEqual([
      ['hi.txt', 'Hello.'],
      ['untitled', 'Hi.'],
    ]);
  });
});

describe('cancellation', () => {
  it('rejects at once with an AbortError when the signal is already aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(
      ingestFiles([fileOf('a.txt', 'x')], { signal: controller.signal }),
    ).rejects.toBeInstanceOf(AbortError);
  });

  it('stops between files and returns nothing half-made', async () => {
    const controller = new AbortController();
    const started: string[] = [];
    const run = ingestFiles(
      [fileOf('a.txt', 'first'), fileOf('b.txt', 'second'), fileOf('c.txt', 'third')],
      {
        signal: controller.signal,
        onProgress: (p) => {
          if (p.file) started.push(p.file);
          if (p.file === 'b.txt') controller.abort();
        },
      },
    );
    const error = await run.then(
      () => null,
      (e: unknown) => e,
    );
    expect(isAbortError(error)).toBe(true);
    expect(started).toEqual(['a.txt', 'b.txt']);
  });

  it('aborts promptly while a large file is being read', async () => {
    const controller = new AbortController();
    const bytes = bookBytes(WAR_AND_PEACE);
    const run = ingestFiles([fileOf('w.txt', bytes), fileOf('w2.txt', bytes)], {
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(), 0);
    const started = performance.now();
    await expect(run).rejects.toSatisfy(isAbortError);
    expect(performance.now() - started).toBeLessThan(2000);
  });
});

describe('public entry (index.ts)', () => {
  it('exposes ingestFiles with the browser PDF reader as default and the constants', async () => {
    expect(publicApi.MAX_FILE_BYTES).toBe(MAX_FILE_BYTES);
    expect(Object.keys(publicApi.SUPPORTED_EXTENSIONS)).toContain('epub');
    const { documents } = await publicApi.ingestFiles([fileOf('x.txt', 'text')]);
    expect(documents[0].text).toBe('text');
    const { documents: pdfs } = await publicApi.ingestFiles(
      [fileOf('p.pdf', makeTextPdf([['P']]))],
      {
        pdfjs: loadPdfjsNode,
      },
    );
    expect(pdfs[0].text).toBe('P');
  });
});
