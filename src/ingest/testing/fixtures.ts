/**
 * @file Test fixtures made from scratch: minimal valid PDFs (hand-written objects with correct
 * xref offsets), EPUBs zipped with fflate, and text re-encoded to UTF-16 and Windows-1252.
 * Used by the tests only; plain Web APIs, so it compiles with the app.
 */
import { zipSync, strToU8, type Zippable } from 'fflate';

function concat(chunks: Uint8Array[]): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

/** Latin-1 bytes of a string of code points below 256 (PDF syntax is bytes, not UTF-8). */
export function latin1(text: string): Uint8Array {
  const out = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code > 0xff) throw new Error(`not Latin-1: ${text[i]}`);
    out[i] = code;
  }
  return out;
}

/** A PDF object's body: text (Latin-1) or, for streams with binary data, chunks of bytes. */
export type PdfObject = string | Uint8Array[];

/**
 * A PDF from numbered objects (object k is `objects[k - 1]`, generation 0) with a classic xref
 * table whose offsets are the real byte offsets, and a trailer with `/Root 1 0 R` plus `trailer`.
 */
export function buildPdf(objects: PdfObject[], trailer = ''): Uint8Array<ArrayBuffer> {
  const chunks: Uint8Array[] = [latin1('%PDF-1.4\n%\xe2\xe3\xcf\xd3\n')];
  let length = chunks[0].length;
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(length);
    const parts = [
      latin1(`${i + 1} 0 obj\n`),
      ...(typeof body === 'string' ? [latin1(body)] : body),
      latin1('\nendobj\n'),
    ];
    for (const p of parts) {
      chunks.push(p);
      length += p.length;
    }
  });
  const xrefAt = length;
  const rows = offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('');
  chunks.push(
    latin1(
      `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${rows}` +
        `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R ${trailer}>>\n` +
        `startxref\n${xrefAt}\n%%EOF\n`,
    ),
  );
  return concat(chunks);
}

/** A PDF literal string: backslash, parentheses escaped; WinAnsi (Latin-1 range) characters. */
export function pdfString(text: string): string {
  return `(${text.replace(/[\\()]/g, (c) => `\\${c}`)})`;
}

/** The content stream of a page: each line shown with Helvetica, one below the other. */
export function textOperators(lines: string[]): string {
  if (lines.length === 0) return '0.2 0.4 0.8 rg 72 72 300 300 re f'; // a filled square, no text
  const shown = lines.map((line, i) => `${i ? 'T* ' : ''}${pdfString(line)} Tj`);
  return ['BT', '/F1 12 Tf', '16 TL', '72 720 Td', ...shown, 'ET'].join('\n');
}

/**
 * The objects of a PDF whose pages show the given lines in Helvetica (a standard Type 1 font, not
 * embedded). A page with no lines has only a filled square: no text at all. Object 1 is the
 * catalog, 2 the page tree, 3 the font, then a page and its content stream per page.
 */
export function textPdfObjects(pages: string[][]): { objects: string[]; contentIds: number[] } {
  const kids = pages.map((_, i) => `${4 + 2 * i} 0 R`).join(' ');
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    `<< /Type /Pages /Kids [${kids}] /Count ${pages.length} >>`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>',
  ];
  const contentIds: number[] = [];
  pages.forEach((lines, i) => {
    const ops = textOperators(lines);
    objects.push(
      '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] ' +
        `/Resources << /Font << /F1 3 0 R >> >> /Contents ${5 + 2 * i} 0 R >>`,
    );
    objects.push(`<< /Length ${ops.length} >>\nstream\n${ops}\nendstream`);
    contentIds.push(5 + 2 * i);
  });
  return { objects, contentIds };
}

/** A PDF with one page per entry, each showing its lines (an empty entry: a page without text). */
export function makeTextPdf(pages: string[][]): Uint8Array<ArrayBuffer> {
  return buildPdf(textPdfObjects(pages).objects);
}

export interface EpubChapter {
  /** Path inside the archive, relative to the OPF's folder. */
  href: string;
  id: string;
  xhtml: string;
}

export interface EpubSpec {
  /** Manifest order (the order files are listed and zipped). */
  chapters: EpubChapter[];
  /** Spine order, by chapter id. */
  spine: string[];
  /** EPUB 3 nav entries: [href, label]. */
  nav?: [string, string][];
  /** EPUB 2 NCX entries: [src, label]. */
  ncx?: [string, string][];
  /** META-INF/encryption.xml content. */
  encryptionXml?: string;
  /** Extra entries. */
  extra?: Record<string, string>;
  /** Leave out META-INF/container.xml. */
  noContainer?: boolean;
  /** Folder of the OPF inside the archive. */
  opfDir?: string;
  /** The package's dc:title, as XML ("The Book" unless given). */
  titleXml?: string;
}

/** An XHTML chapter with a heading and paragraphs. */
export function chapterXhtml(heading: string, paragraphs: string[]): string {
  return (
    '<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE html>\n' +
    '<html xmlns="http://www.w3.org/1999/xhtml" xmlns:epub="http://www.idpf.org/2007/ops">\n' +
    `<head><title>The Book</title><link rel="stylesheet" href="style.css"/></head>\n<body>\n` +
    `<h1>${heading}</h1>\n${paragraphs.map((p) => `<p>${p}</p>`).join('\n')}\n</body>\n</html>\n`
  );
}

/** An EPUB archive: mimetype first and stored, container.xml, OPF, chapters, nav or NCX. */
export function makeEpub(spec: EpubSpec): Uint8Array<ArrayBuffer> {
  const dir = spec.opfDir ?? 'OEBPS';
  const prefix = dir ? `${dir}/` : '';
  const manifest = spec.chapters.map(
    (c) => `<item id="${c.id}" href="${c.href}" media-type="application/xhtml+xml"/>`,
  );
  const files: Zippable = {
    mimetype: [strToU8('application/epub+zip'), { level: 0 }],
  };
  if (!spec.noContainer) {
    files['META-INF/container.xml'] = strToU8(
      '<?xml version="1.0"?>\n<container version="1.0" ' +
        'xmlns="urn:oasis:names:tc:opendocument:xmlns:container">\n<rootfiles>\n' +
        `<rootfile full-path="${prefix}content.opf" media-type="application/oebps-package+xml"/>\n` +
        '</rootfiles>\n</container>\n',
    );
  }
  if (spec.nav) {
    manifest.push(
      '<item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/>',
    );
    files[`${prefix}nav.xhtml`] = strToU8(
      '<?xml version="1.0" encoding="UTF-8"?>\n<html xmlns="http://www.w3.org/1999/xhtml" ' +
        'xmlns:epub="http://www.idpf.org/2007/ops"><head><title>Contents</title></head><body>' +
        '<nav epub:type="toc"><h1>Contents</h1><ol>' +
        spec.nav.map(([href, label]) => `<li><a href="${href}">${label}</a></li>`).join('') +
        '</ol></nav></body></html>',
    );
  }
  if (spec.ncx) {
    manifest.push('<item id="ncx" href="toc.ncx" media-type="application/x-dtbncx+xml"/>');
    files[`${prefix}toc.ncx`] = strToU8(
      '<?xml version="1.0" encoding="UTF-8"?>\n<ncx xmlns="http://www.daisy.org/z3986/2005/ncx/" ' +
        'version="2005-1"><navMap>' +
        spec.ncx
          .map(
            ([src, label], i) =>
              `<navPoint id="p${i}" playOrder="${i + 1}"><navLabel><text>${label}</text>` +
              `</navLabel><content src="${src}"/></navPoint>`,
          )
          .join('') +
        '</navMap></ncx>',
    );
  }
  files[`${prefix}content.opf`] = strToU8(
    '<?xml version="1.0" encoding="UTF-8"?>\n' +
      '<package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="uid">\n' +
      '<metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:identifier id="uid">urn:x</dc:identifier>' +
      `<dc:title>${spec.titleXml ?? 'The Book'}</dc:title><dc:language>en</dc:language></metadata>\n` +
      `<manifest>\n${manifest.join('\n')}\n</manifest>\n` +
      `<spine${spec.ncx ? ' toc="ncx"' : ''}>\n` +
      spec.spine.map((id) => `<itemref idref="${id}"/>`).join('\n') +
      '\n</spine>\n</package>\n',
  );
  // Hrefs are URLs; archive entries carry the decoded names.
  for (const c of spec.chapters) files[`${prefix}${decodeURIComponent(c.href)}`] = strToU8(c.xhtml);
  if (spec.encryptionXml !== undefined) {
    files['META-INF/encryption.xml'] = strToU8(spec.encryptionXml);
  }
  for (const [path, content] of Object.entries(spec.extra ?? {})) files[path] = strToU8(content);
  return zipSync(files) as Uint8Array<ArrayBuffer>;
}

/** UTF-16 bytes with a byte-order mark. */
export function encodeUtf16(text: string, endian: 'le' | 'be'): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(2 + text.length * 2);
  const view = new DataView(out.buffer);
  view.setUint16(0, 0xfeff, endian === 'le');
  for (let i = 0; i < text.length; i++)
    view.setUint16(2 + 2 * i, text.charCodeAt(i), endian === 'le');
  return out;
}

/** Windows-1252 bytes for the characters it has above 0x7F outside Latin-1. */
const CP1252_HIGH: Record<number, number> = {
  0x20ac: 0x80,
  0x201a: 0x82,
  0x0192: 0x83,
  0x201e: 0x84,
  0x2026: 0x85,
  0x2020: 0x86,
  0x2021: 0x87,
  0x02c6: 0x88,
  0x2030: 0x89,
  0x0160: 0x8a,
  0x2039: 0x8b,
  0x0152: 0x8c,
  0x017d: 0x8e,
  0x2018: 0x91,
  0x2019: 0x92,
  0x201c: 0x93,
  0x201d: 0x94,
  0x2022: 0x95,
  0x2013: 0x96,
  0x2014: 0x97,
  0x02dc: 0x98,
  0x2122: 0x99,
  0x0161: 0x9a,
  0x203a: 0x9b,
  0x0153: 0x9c,
  0x017e: 0x9e,
  0x0178: 0x9f,
};

/** Windows-1252 bytes of a text; throws on a character the encoding lacks. */
export function encodeWindows1252(text: string): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    const byte = code < 0x80 || (code >= 0xa0 && code <= 0xff) ? code : CP1252_HIGH[code];
    if (byte === undefined) throw new Error(`not in Windows-1252: U+${code.toString(16)}`);
    out[i] = byte;
  }
  return out;
}

/** A File from bytes or text, as a drop would give it. */
export function fileOf(name: string, content: Uint8Array<ArrayBuffer> | string, type = ''): File {
  return new File([content], name, { type });
}
