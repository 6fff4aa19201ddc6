/**
 * @file EPUB (2 and 3) to text: unzip with fflate, META-INF/container.xml -> OPF -> spine order ->
 * XHTML documents, each made plain text by html.ts (no DOMParser, so this runs in workers too).
 *
 * Each spine document with text becomes one 'chapter' section; chapters are joined by a blank
 * line. A chapter's title is the first table-of-contents entry pointing at its file (EPUB 3 nav,
 * else EPUB 2 NCX), else its first heading, else "Section n". Only the files needed are
 * decompressed, so images and fonts cost nothing.
 *
 * Encrypted books: META-INF/encryption.xml listing content documents under a real cipher is DRM
 * ('epub-encrypted'). Font obfuscation (IDPF and Adobe algorithms) only scrambles fonts and is
 * ignored. A content document that is binary in a book with DRM licence files (rights.xml,
 * sinf.xml) is also reported as DRM.
 */
import { unzipSync, type UnzipFileInfo } from 'fflate';
import { fail, formatBytes, quoted } from './errors';
import { decodeText, isBlank, looksBinary, normalizeNewlines } from './decode';
import { declaredCharset, htmlToText } from './html';
import { findAll, findFirst, parseXml, textContent } from './markup';
import { cleanTitle } from './title';
import type { Section } from './types';

export interface EpubText {
  text: string;
  sections: Section[];
  /** The package's dc:title, when it has one. */
  title?: string;
}

export interface EpubOptions {
  /** Upper limit on the unpacked size of the content documents, in bytes. */
  maxBytes: number;
  /** Called between chapters: throws on abort and yields to the event loop now and then. */
  checkpoint: () => Promise<void>;
}

/** Obfuscation of embedded fonts, which is not DRM: the text stays readable. */
const FONT_OBFUSCATION = new Set([
  'http://www.idpf.org/2008/embedding',
  'http://ns.adobe.com/pdf/enc#RC',
]);

const DRM_LICENCE_FILES = ['META-INF/rights.xml', 'META-INF/sinf.xml'];

const CHAPTER_SEPARATOR = '\n\n';

interface ManifestItem {
  id: string;
  path: string;
  mediaType: string;
  properties: string[];
}

/** Resolve an href against the directory of the file it appears in; fragments are dropped. */
export function resolvePath(baseDir: string, href: string): string {
  let path = href.replace(/[#?].*$/, '');
  try {
    path = decodeURIComponent(path);
  } catch {
    // A stray '%' is taken literally.
  }
  const parts = path.startsWith('/') ? [] : baseDir.split('/').filter(Boolean);
  for (const part of path.split('/')) {
    if (part === '..') parts.pop();
    else if (part !== '.' && part !== '') parts.push(part);
  }
  return parts.join('/');
}

function dirOf(path: string): string {
  const slash = path.lastIndexOf('/');
  return slash < 0 ? '' : path.slice(0, slash);
}

/** The ZIP archive: entry names (as listed) and extraction of chosen entries. */
class Archive {
  private readonly entries = new Map<string, UnzipFileInfo>();
  private readonly byLowerName = new Map<string, string>();

  constructor(
    private readonly bytes: Uint8Array,
    private readonly file: string,
  ) {
    const isZip = bytes[0] === 0x50 && bytes[1] === 0x4b && (bytes[2] === 3 || bytes[2] === 5);
    if (!isZip) broken(file, 'it is not a ZIP archive, which every EPUB is');
    try {
      unzipSync(bytes, {
        filter: (info) => {
          this.entries.set(info.name, info);
          this.byLowerName.set(info.name.toLowerCase(), info.name);
          return false;
        },
      });
    } catch (error) {
      broken(file, `its ZIP archive is damaged: ${describe(error)}`);
    }
  }

  /** The entry's name as stored, matching exactly or else ignoring case. */
  find(path: string): string | undefined {
    if (this.entries.has(path)) return path;
    return this.byLowerName.get(path.toLowerCase());
  }

  has(path: string): boolean {
    return this.find(path) !== undefined;
  }

  names(): string[] {
    return [...this.entries.keys()];
  }

  originalSize(path: string): number {
    const name = this.find(path);
    return name ? (this.entries.get(name)?.originalSize ?? 0) : 0;
  }

  /** Decompress the given entries (names as stored). */
  extract(paths: string[]): Map<string, Uint8Array> {
    const wanted = new Set(paths.map((p) => this.find(p)).filter((p) => p !== undefined));
    let files: Record<string, Uint8Array>;
    try {
      files = unzipSync(this.bytes, { filter: (info) => wanted.has(info.name) });
    } catch (error) {
      broken(this.file, `part of its ZIP archive is damaged: ${describe(error)}`);
    }
    const out = new Map<string, Uint8Array>();
    for (const p of paths) {
      const name = this.find(p);
      if (name && files[name]) out.set(p, files[name]);
    }
    return out;
  }

  /** One entry as text, or undefined when absent. */
  readText(path: string): string | undefined {
    const bytes = this.extract([path]).get(path);
    return bytes ? normalizeNewlines(decodeText(bytes, declaredCharset(bytes)).text) : undefined;
  }
}

function describe(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message || 'unknown error';
}

function broken(file: string, why: string): never {
  return fail(
    file,
    'epub-broken',
    `${quoted(file)} is not a readable EPUB: ${why}. Download it again, or convert it to EPUB, ` +
      'PDF or plain text with an e-book tool such as Calibre.',
  );
}

function drm(file: string): never {
  return fail(
    file,
    'epub-encrypted',
    `${quoted(file)} is protected by DRM (its chapters are encrypted), so its text cannot be ` +
      'read. Drop a DRM-free copy of the book.',
  );
}

function findOpfPath(archive: Archive, file: string): string {
  const containerXml = archive.readText('META-INF/container.xml');
  if (containerXml !== undefined) {
    const rootfiles = findAll(parseXml(containerXml), 'rootfile');
    const rootfile =
      rootfiles.find((r) => r.attrs['media-type'] === 'application/oebps-package+xml') ??
      rootfiles[0];
    const fullPath = rootfile?.attrs['full-path'];
    if (fullPath && archive.has(resolvePath('', fullPath))) return resolvePath('', fullPath);
    if (fullPath) broken(file, `its package file “${fullPath}” is missing`);
  }
  // Forgiving: a book without a usable container.xml but with exactly one OPF file.
  const opfs = archive.names().filter((n) => n.toLowerCase().endsWith('.opf'));
  if (opfs.length === 1) return opfs[0];
  return broken(
    file,
    containerXml === undefined
      ? 'META-INF/container.xml is missing'
      : 'META-INF/container.xml names no package file',
  );
}

interface Package {
  manifest: Map<string, ManifestItem>;
  spine: ManifestItem[];
  tocId: string | undefined;
  title: string | undefined;
}

function readPackage(archive: Archive, opfPath: string, file: string): Package {
  const opfText = archive.readText(opfPath);
  if (opfText === undefined) broken(file, `its package file “${opfPath}” is missing`);
  const opf = parseXml(opfText);
  const baseDir = dirOf(opfPath);
  const manifest = new Map<string, ManifestItem>();
  for (const item of findAll(opf, 'item')) {
    const { id, href } = item.attrs;
    if (!id || !href) continue;
    manifest.set(id, {
      id,
      path: resolvePath(baseDir, href),
      mediaType: (item.attrs['media-type'] ?? '').toLowerCase(),
      properties: (item.attrs['properties'] ?? '').split(/\s+/).filter(Boolean),
    });
  }
  const spineEl = findFirst(opf, 'spine');
  const spine: ManifestItem[] = [];
  for (const ref of spineEl ? findAll(spineEl, 'itemref') : []) {
    const item = manifest.get(ref.attrs['idref'] ?? '');
    if (item) spine.push(item);
  }
  if (spine.length === 0) broken(file, 'its reading order (the OPF spine) is empty');
  // The first dc:title of the metadata is the book's (EPUB 3 may add subtitles after it).
  const metadata = findFirst(opf, 'metadata');
  const titleEl = metadata ? findFirst(metadata, 'title') : undefined;
  const title = cleanTitle(titleEl ? textContent(titleEl) : undefined);
  return { manifest, spine, tocId: spineEl?.attrs['toc'], title };
}

function checkEncryption(archive: Archive, spine: ManifestItem[], file: string): void {
  const encryptionXml = archive.readText('META-INF/encryption.xml');
  if (encryptionXml === undefined) return;
  const spinePaths = new Set(spine.map((s) => s.path.toLowerCase()));
  for (const data of findAll(parseXml(encryptionXml), 'encrypteddata')) {
    const algorithm = findFirst(data, 'encryptionmethod')?.attrs['algorithm'] ?? '';
    if (FONT_OBFUSCATION.has(algorithm)) continue;
    const uri = findFirst(data, 'cipherreference')?.attrs['uri'];
    // Paths in encryption.xml are relative to the root of the container.
    if (uri && spinePaths.has(resolvePath('', uri).toLowerCase())) drm(file);
  }
}

/** Table-of-contents labels by file path (first entry per file wins). */
function tocLabels(archive: Archive, pkg: Package): Map<string, string> {
  const labels = new Map<string, string>();
  const add = (path: string, label: string) => {
    if (label && !labels.has(path)) labels.set(path, label);
  };
  const nav = [...pkg.manifest.values()].find((item) => item.properties.includes('nav'));
  const navText = nav && archive.readText(nav.path);
  if (nav && navText) {
    const navs = findAll(parseXml(navText), 'nav');
    const toc = navs.find((n) => /\btoc\b/.test(n.attrs['epub:type'] ?? '')) ?? navs[0];
    for (const a of toc ? findAll(toc, 'a') : []) {
      const href = a.attrs['href'];
      if (href) add(resolvePath(dirOf(nav.path), href), textContent(a));
    }
  }
  if (labels.size > 0) return labels;
  const ncx =
    (pkg.tocId !== undefined ? pkg.manifest.get(pkg.tocId) : undefined) ??
    [...pkg.manifest.values()].find((item) => item.mediaType === 'application/x-dtbncx+xml');
  const ncxText = ncx && archive.readText(ncx.path);
  if (ncx && ncxText) {
    for (const point of findAll(parseXml(ncxText), 'navpoint')) {
      const label = findFirst(point, 'navlabel');
      const src = findFirst(point, 'content')?.attrs['src'];
      if (label && src) add(resolvePath(dirOf(ncx.path), src), textContent(label));
    }
  }
  return labels;
}

function isContentDocument(item: ManifestItem): boolean {
  if (item.mediaType === 'application/xhtml+xml' || item.mediaType === 'text/html') return true;
  return !item.mediaType && /\.(x?html?)$/i.test(item.path);
}

export async function readEpub(
  bytes: Uint8Array,
  file: string,
  options: EpubOptions,
): Promise<EpubText> {
  const archive = new Archive(bytes, file);
  const opfPath = findOpfPath(archive, file);
  const pkg = readPackage(archive, opfPath, file);
  checkEncryption(archive, pkg.spine, file);

  const chapters = pkg.spine.filter(isContentDocument);
  const missing = chapters.filter((c) => !archive.has(c.path));
  if (missing.length === chapters.length) {
    broken(file, 'none of the chapters its reading order lists are in the archive');
  }
  const present = chapters.filter((c) => archive.has(c.path));
  const unpacked = present.reduce((sum, c) => sum + archive.originalSize(c.path), 0);
  if (unpacked > options.maxBytes) {
    fail(
      file,
      'too-large',
      `${quoted(file)} unpacks to ${formatBytes(unpacked)} of chapters, over the limit of ` +
        `${formatBytes(options.maxBytes)} per file. Split the book, or drop a plain-text version.`,
    );
  }
  const labels = tocLabels(archive, pkg);
  await options.checkpoint();
  const contents = archive.extract([...new Set(present.map((c) => c.path))]);
  const hasLicence = DRM_LICENCE_FILES.some((p) => archive.has(p));

  const parts: string[] = [];
  const sections: Section[] = [];
  let length = 0;
  for (const chapter of present) {
    await options.checkpoint();
    const raw = contents.get(chapter.path);
    if (!raw) continue;
    if (looksBinary(raw)) {
      if (hasLicence) drm(file);
      broken(file, `its chapter “${chapter.path}” is not text`);
    }
    const { text: chapterText, headings } = htmlToText(
      normalizeNewlines(decodeText(raw, declaredCharset(raw)).text),
    );
    const trimmed = chapterText.trim();
    if (!trimmed) continue;
    if (parts.length > 0) {
      parts.push(CHAPTER_SEPARATOR);
      length += CHAPTER_SEPARATOR.length;
    }
    const title =
      labels.get(chapter.path) ?? headings[0]?.title ?? `Section ${sections.length + 1}`;
    sections.push({ title, start: length, end: length + trimmed.length, kind: 'chapter' });
    parts.push(trimmed);
    length += trimmed.length;
  }
  const text = parts.join('');
  if (isBlank(text)) {
    fail(
      file,
      'empty',
      `${quoted(file)} has no text in its chapters (its pages are probably images). ` +
        'Drop a version with text, or run it through OCR first.',
    );
  }
  return pkg.title ? { text, sections, title: pkg.title } : { text, sections };
}
