import { strToU8, zipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { resolvePath } from './epub';
import { ingestFiles } from './ingest';
import { chapterXhtml, fileOf, makeEpub, type EpubChapter } from './testing/fixtures';

async function readOne(name: string, bytes: Uint8Array<ArrayBuffer>, maxBytes?: number) {
  const { documents, errors } = await ingestFiles([fileOf(name, bytes)], { maxBytes });
  expect(documents.length + errors.length).toBe(1);
  return { doc: documents[0], error: errors[0] };
}

/** Files listed (and zipped) in the order intro, two, one; read in the order intro, one, two. */
const CHAPTERS: EpubChapter[] = [
  {
    id: 'intro',
    href: 'text/intro.xhtml',
    xhtml: chapterXhtml('Preface', ['A word before the story.']),
  },
  {
    id: 'two',
    href: 'text/chapter%202.xhtml',
    xhtml: chapterXhtml('II. The Second', [
      'Second chapter, with <em>emphasis</em> &amp; an entity&#8212;and a dash.',
    ]),
  },
  {
    id: 'one',
    href: 'text/one.xhtml',
    xhtml: chapterXhtml('I. The First', ['First chapter.', 'Its “second” paragraph.']),
  },
];
const SPINE = ['intro', 'one', 'two'];

const EXPECTED_TEXT =
  'Preface\n\nA word before the story.\n\n' +
  'I. The First\n\nFirst chapter.\n\nIts “second” paragraph.\n\n' +
  'II. The Second\n\nSecond chapter, with emphasis & an entity—and a dash.';

describe('EPUB', () => {
  it('reads chapters in spine order (not file order), titled from the EPUB 3 nav', async () => {
    const epub = makeEpub({
      chapters: CHAPTERS,
      spine: SPINE,
      nav: [
        ['text/intro.xhtml', 'Before'],
        ['text/one.xhtml#start', 'Chapter One'],
        ['text/chapter%202.xhtml', 'Chapter Two'],
      ],
    });
    const { doc, error } = await readOne('book.epub', epub);
    expect(error).toBeUndefined();
    expect(doc.format).toBe('epub');
    expect(doc.text).toBe(EXPECTED_TEXT);
    expect(doc.sections.map((s) => s.title)).toEqual(['Before', 'Chapter One', 'Chapter Two']);
    expect(doc.sections.every((s) => s.kind === 'chapter')).toBe(true);
    const slices = doc.sections.map((s) => doc.text.slice(s.start, s.end));
    expect(slices).toEqual([
      'Preface\n\nA word before the story.',
      'I. The First\n\nFirst chapter.\n\nIts “second” paragraph.',
      'II. The Second\n\nSecond chapter, with emphasis & an entity—and a dash.',
    ]);
    expect(doc.encoding).toBeUndefined();
    expect(doc.bytes).toBe(epub.length);
  });

  it('takes titles from the EPUB 2 NCX, else from the first heading', async () => {
    const withNcx = makeEpub({
      chapters: CHAPTERS,
      spine: SPINE,
      ncx: [
        ['text/one.xhtml', 'NCX One'],
        ['text/chapter 2.xhtml', 'NCX Two'],
      ],
    });
    const { doc } = await readOne('ncx.epub', withNcx);
    expect(doc.sections.map((s) => s.title)).toEqual(['Preface', 'NCX One', 'NCX Two']);

    const bare = makeEpub({ chapters: CHAPTERS, spine: SPINE });
    const { doc: plain } = await readOne('bare.epub', bare);
    expect(plain.sections.map((s) => s.title)).toEqual([
      'Preface',
      'I. The First',
      'II. The Second',
    ]);
    expect(plain.text).toBe(EXPECTED_TEXT);
  });

  it('skips chapters without text and names untitled ones "Section n"', async () => {
    const epub = makeEpub({
      chapters: [
        {
          id: 'cover',
          href: 'cover.xhtml',
          xhtml: '<html><body><img src="cover.jpg" alt="Cover"/></body></html>',
        },
        { id: 'a', href: 'a.xhtml', xhtml: '<html><body><p>No heading here.</p></body></html>' },
      ],
      spine: ['cover', 'a'],
      opfDir: '',
    });
    const { doc } = await readOne('covered.epub', epub);
    expect(doc.text).toBe('No heading here.');
    expect(doc.sections).toEqual([{ title: 'Section 1', start: 0, end: 16, kind: 'chapter' }]);
  });

  it('finds the package file without container.xml when there is exactly one', async () => {
    const epub = makeEpub({ chapters: CHAPTERS, spine: SPINE, noContainer: true });
    const { doc } = await readOne('nocontainer.epub', epub);
    expect(doc.text).toBe(EXPECTED_TEXT);
  });

  it('reads fonts obfuscated by the IDPF algorithm as a normal book (that is not DRM)', async () => {
    const epub = makeEpub({
      chapters: CHAPTERS,
      spine: SPINE,
      encryptionXml:
        '<encryption xmlns="urn:oasis:names:tc:opendocument:xmlns:container" ' +
        'xmlns:enc="http://www.w3.org/2001/04/xmlenc#"><enc:EncryptedData>' +
        '<enc:EncryptionMethod Algorithm="http://www.idpf.org/2008/embedding"/>' +
        '<enc:CipherData><enc:CipherReference URI="OEBPS/fonts/serif.otf"/></enc:CipherData>' +
        '</enc:EncryptedData></encryption>',
    });
    const { doc, error } = await readOne('fonts.epub', epub);
    expect(error).toBeUndefined();
    expect(doc.text).toBe(EXPECTED_TEXT);
  });

  it("says 'epub-encrypted' when encryption.xml encrypts the chapters (DRM)", async () => {
    const epub = makeEpub({
      chapters: CHAPTERS,
      spine: SPINE,
      encryptionXml:
        '<?xml version="1.0"?><encryption xmlns="urn:oasis:names:tc:opendocument:xmlns:container" ' +
        'xmlns:enc="http://www.w3.org/2001/04/xmlenc#"><enc:EncryptedData>' +
        '<enc:EncryptionMethod Algorithm="http://www.w3.org/2001/04/xmlenc#aes128-cbc"/>' +
        '<enc:CipherData><enc:CipherReference URI="OEBPS/text/one.xhtml"/></enc:CipherData>' +
        '</enc:EncryptedData></encryption>',
      extra: { 'META-INF/rights.xml': '<rights/>' },
    });
    const { doc, error } = await readOne('drm.epub', epub);
    expect(doc).toBeUndefined();
    expect(error).toEqual({
      file: 'drm.epub',
      code: 'epub-encrypted',
      message:
        '“drm.epub” is protected by DRM (its chapters are encrypted), so its text cannot be ' +
        'read. Drop a DRM-free copy of the book.',
    });
  });

  it("says 'epub-encrypted' for binary chapters in a book with a DRM licence file", async () => {
    const files = {
      mimetype: strToU8('application/epub+zip'),
      'META-INF/container.xml': strToU8(
        '<container><rootfiles><rootfile full-path="c.opf"/></rootfiles></container>',
      ),
      'META-INF/rights.xml': strToU8('<rights/>'),
      'c.opf': strToU8(
        '<package><manifest><item id="x" href="x.xhtml" media-type="application/xhtml+xml"/>' +
          '</manifest><spine><itemref idref="x"/></spine></package>',
      ),
      'x.xhtml': new Uint8Array(256).map((_, i) => (i * 37) & 255),
    };
    const { error } = await readOne('adept.epub', zipSync(files) as Uint8Array<ArrayBuffer>);
    expect(error?.code).toBe('epub-encrypted');
  });

  it("says 'epub-broken' for a truncated archive, a non-ZIP, and a ZIP that is no EPUB", async () => {
    const epub = makeEpub({ chapters: CHAPTERS, spine: SPINE });
    const truncated = await readOne('cut.epub', epub.slice(0, epub.length - 100));
    expect(truncated.error?.code).toBe('epub-broken');
    expect(truncated.error?.message).toMatch(
      /^“cut\.epub” is not a readable EPUB: its ZIP archive is damaged: .+\. Download it again, /,
    );

    const notZip = await readOne('text.epub', strToU8('Chapter 1. This is plain text.'));
    expect(notZip.error).toEqual({
      file: 'text.epub',
      code: 'epub-broken',
      message:
        '“text.epub” is not a readable EPUB: it is not a ZIP archive, which every EPUB is. ' +
        'Download it again, or convert it to EPUB, PDF or plain text with an e-book tool such ' +
        'as Calibre.',
    });

    const zip = zipSync({ 'notes.txt': strToU8('hello') }) as Uint8Array<ArrayBuffer>;
    const noEpub = await readOne('photos.epub', zip);
    expect(noEpub.error?.code).toBe('epub-broken');
    expect(noEpub.error?.message).toContain('META-INF/container.xml is missing');
  });

  it("says 'epub-broken' for an empty spine or chapters missing from the archive", async () => {
    const empty = makeEpub({ chapters: CHAPTERS, spine: [] });
    expect((await readOne('nospine.epub', empty)).error?.message).toContain(
      'its reading order (the OPF spine) is empty',
    );
    const missing = makeEpub({
      chapters: [{ id: 'a', href: 'a.xhtml', xhtml: chapterXhtml('A', ['a']) }],
      spine: ['a'],
    });
    // Rename the chapter inside the archive (local header and central directory) so the
    // manifest points nowhere.
    const renamed = Buffer.from(missing);
    let renames = 0;
    for (
      let i = renamed.indexOf('OEBPS/a.xhtml');
      i >= 0;
      i = renamed.indexOf('OEBPS/a.xhtml', i)
    ) {
      renamed[i + 6] = 'b'.charCodeAt(0);
      renames++;
    }
    expect(renames).toBe(2);
    const result = await readOne('missing.epub', new Uint8Array(renamed));
    expect(result.error?.code).toBe('epub-broken');
    expect(result.error?.message).toContain('none of the chapters');
  });

  it("says 'empty' for a book whose chapters hold only images", async () => {
    const epub = makeEpub({
      chapters: [
        { id: 'p1', href: 'p1.xhtml', xhtml: '<html><body><img src="1.jpg"/></body></html>' },
        {
          id: 'p2',
          href: 'p2.xhtml',
          xhtml: '<html><body><svg><text>x</text></svg></body></html>',
        },
      ],
      spine: ['p1', 'p2'],
    });
    const { error } = await readOne('comic.epub', epub);
    expect(error?.code).toBe('empty');
    expect(error?.message).toMatch(/^“comic\.epub” has no text in its chapters/);
  });

  it("says 'too-large' when the chapters unpack past the limit (a small file of much text)", async () => {
    const paragraphs = Array.from({ length: 2000 }, () => 'All work and no play.');
    const epub = makeEpub({
      chapters: [{ id: 'a', href: 'a.xhtml', xhtml: chapterXhtml('A', paragraphs) }],
      spine: ['a'],
    });
    expect(epub.length).toBeLessThan(20_000);
    const { error } = await readOne('dense.epub', epub, 20_000);
    expect(error?.code).toBe('too-large');
    expect(error?.message).toMatch(/^“dense\.epub” unpacks to \d+ KB of chapters, over the limit/);
  });
});

describe('resolvePath', () => {
  it('resolves hrefs against a folder, decoding and dropping fragments', () => {
    expect(resolvePath('OEBPS', 'text/ch%201.xhtml#p3')).toBe('OEBPS/text/ch 1.xhtml');
    expect(resolvePath('OEBPS/text', '../images/a.jpg')).toBe('OEBPS/images/a.jpg');
    expect(resolvePath('OEBPS/text', './b.xhtml')).toBe('OEBPS/text/b.xhtml');
    expect(resolvePath('', 'content.opf')).toBe('content.opf');
    expect(resolvePath('a/b', '/root.xhtml')).toBe('root.xhtml');
    expect(resolvePath('a', '100%.xhtml')).toBe('a/100%.xhtml');
  });
});
