/**
 * @file A small, forgiving tokenizer for HTML, XHTML and XML, with entity decoding and a light
 * element tree for XML files (EPUB's container.xml, OPF, NCX, nav).
 *
 * Why not DOMParser: it exists on the main thread but not in workers, and ingestion should run in
 * either. Books need far less than a browser's parser: tags, attributes, text, comments, CDATA and
 * raw-text elements. Element names are lower-cased and lose their namespace prefix (`opf:item` is
 * `item`), attribute names are lower-cased and keep theirs (`epub:type`).
 */
import { WINDOWS_1252_C1 } from './decode';
import { NAMED_ENTITIES } from './entities';

export type MarkupToken =
  | { type: 'text'; text: string }
  | { type: 'open'; name: string; attrs: Record<string, string>; selfClosing: boolean }
  | { type: 'close'; name: string };

/** Elements whose content is not markup: it runs to the matching end tag. */
const RAW_TEXT = new Set(['script', 'style', 'textarea', 'title', 'xmp', 'noembed', 'noframes']);

/** Named references that HTML also accepts without the closing semicolon. */
const LEGACY_NO_SEMICOLON = new Set(['amp', 'lt', 'gt', 'quot', 'nbsp', 'copy', 'reg']);

function codePointText(code: number): string {
  // Code points 0x80..0x9F in numeric references mean Windows-1252 characters (HTML spec).
  const mapped = WINDOWS_1252_C1[code] ?? code;
  if (mapped === 0 || mapped > 0x10ffff || (mapped >= 0xd800 && mapped <= 0xdfff)) return '\ufffd';
  return String.fromCodePoint(mapped);
}

/** Decode `&amp;`, `&#233;`, `&#xE9;` and the named references of entities.ts. */
export function decodeEntities(text: string): string {
  if (!text.includes('&')) return text;
  return text.replace(
    /&(?:#(\d{1,8})|#[xX]([0-9a-fA-F]{1,7})|([A-Za-z][A-Za-z0-9]{1,31}))(;?)/g,
    (whole, dec: string | undefined, hex: string | undefined, name: string | undefined, semi) => {
      if (dec !== undefined) return codePointText(Number.parseInt(dec, 10));
      if (hex !== undefined) return codePointText(Number.parseInt(hex, 16));
      if (name !== undefined && (semi || LEGACY_NO_SEMICOLON.has(name))) {
        return NAMED_ENTITIES.get(name) ?? whole;
      }
      return whole;
    },
  );
}

function localName(qualified: string): string {
  const lower = qualified.toLowerCase();
  const colon = lower.indexOf(':');
  return colon >= 0 ? lower.slice(colon + 1) : lower;
}

const TAG_NAME = /[A-Za-z][^\s/>]*/y;
const ATTR_NAME = /[^\s/>="']+/y;
const UNQUOTED_VALUE = /[^\s>]+/y;
const SPACE = /\s*/y;
const END_TAG = /<\/([A-Za-z][^\s/>]*)[^>]*>/y;

function matchAt(re: RegExp, src: string, at: number): RegExpExecArray | null {
  re.lastIndex = at;
  return re.exec(src);
}

/**
 * Tokenize markup. Text tokens carry raw text, entities NOT decoded (see decodeEntities); the
 * literal text of a CDATA section comes with its `&` escaped, so decoding gives it back unchanged.
 * Comments, doctypes and processing instructions are dropped.
 */
export function* tokenize(src: string): Generator<MarkupToken> {
  let i = 0;
  let textStart = 0;
  const n = src.length;
  while (i < n) {
    const lt = src.indexOf('<', i);
    if (lt < 0) break;
    const next = src.charCodeAt(lt + 1);
    let consumed = -1;
    const tokens: MarkupToken[] = [];

    if (src.startsWith('<!--', lt)) {
      const end = src.indexOf('-->', lt + 4);
      consumed = end < 0 ? n : end + 3;
    } else if (src.startsWith('<![CDATA[', lt)) {
      const end = src.indexOf(']]>', lt + 9);
      const body = src.slice(lt + 9, end < 0 ? n : end);
      tokens.push({ type: 'text', text: body.replace(/&/g, '&amp;') });
      consumed = end < 0 ? n : end + 3;
    } else if (next === 0x21 /* ! */ || next === 0x3f /* ? */) {
      const end = src.indexOf('>', lt + 2);
      consumed = end < 0 ? n : end + 1;
    } else if (next === 0x2f /* / */) {
      const m = matchAt(END_TAG, src, lt);
      if (m) {
        tokens.push({ type: 'close', name: localName(m[1]) });
        consumed = lt + m[0].length;
      }
    } else {
      const open = readStartTag(src, lt);
      if (open === 'eof') {
        consumed = n; // a tag cut off by the end of the file shows nothing, as in browsers
      } else if (open) {
        tokens.push(open.token);
        consumed = open.end;
        if (RAW_TEXT.has(open.token.name) && !open.token.selfClosing) {
          const close = findRawTextEnd(src, consumed, open.token.name);
          tokens.push({ type: 'text', text: src.slice(consumed, close.contentEnd) });
          if (close.tagEnd > close.contentEnd)
            tokens.push({ type: 'close', name: open.token.name });
          consumed = close.tagEnd;
        }
      }
    }

    if (consumed < 0) {
      // A '<' that starts no tag is text.
      i = lt + 1;
      continue;
    }
    if (lt > textStart) yield { type: 'text', text: src.slice(textStart, lt) };
    yield* tokens;
    i = textStart = consumed;
  }
  if (textStart < n) yield { type: 'text', text: src.slice(textStart) };
}

function readStartTag(
  src: string,
  lt: number,
): { token: Extract<MarkupToken, { type: 'open' }>; end: number } | 'eof' | null {
  const nameMatch = matchAt(TAG_NAME, src, lt + 1);
  if (!nameMatch) return null;
  const attrs: Record<string, string> = {};
  let at = lt + 1 + nameMatch[0].length;
  for (;;) {
    at += matchAt(SPACE, src, at)?.[0].length ?? 0;
    if (at >= src.length) return 'eof';
    const c = src[at];
    if (c === '>') {
      at += 1;
      return { token: openToken(nameMatch[0], attrs, false), end: at };
    }
    if (c === '/') {
      if (src[at + 1] === '>') return { token: openToken(nameMatch[0], attrs, true), end: at + 2 };
      at += 1;
      continue;
    }
    const attr = matchAt(ATTR_NAME, src, at);
    if (!attr) {
      at += 1; // a stray quote or '='; skip it as browsers do
      continue;
    }
    at += attr[0].length;
    let value = '';
    const afterName = at + (matchAt(SPACE, src, at)?.[0].length ?? 0);
    if (src[afterName] === '=') {
      at = afterName + 1;
      at += matchAt(SPACE, src, at)?.[0].length ?? 0;
      const quote = src[at];
      if (quote === '"' || quote === "'") {
        const close = src.indexOf(quote, at + 1);
        if (close < 0) return 'eof';
        value = src.slice(at + 1, close);
        at = close + 1;
      } else {
        const m = matchAt(UNQUOTED_VALUE, src, at);
        value = m ? m[0] : '';
        at += value.length;
      }
    }
    const key = attr[0].toLowerCase();
    if (!(key in attrs)) attrs[key] = decodeEntities(value);
  }
}

function openToken(
  name: string,
  attrs: Record<string, string>,
  selfClosing: boolean,
): Extract<MarkupToken, { type: 'open' }> {
  return { type: 'open', name: localName(name), attrs, selfClosing };
}

function findRawTextEnd(
  src: string,
  from: number,
  name: string,
): { contentEnd: number; tagEnd: number } {
  const re = new RegExp(`</(?:[A-Za-z][\\w.-]*:)?${name}\\b[^>]*>`, 'gi');
  re.lastIndex = from;
  const m = re.exec(src);
  if (!m) return { contentEnd: src.length, tagEnd: src.length };
  return { contentEnd: m.index, tagEnd: m.index + m[0].length };
}

/** An element of a light XML tree. `children` holds elements and decoded text. */
export interface XmlElement {
  name: string;
  attrs: Record<string, string>;
  children: (XmlElement | string)[];
}

/**
 * Parse XML into a light tree under a synthetic root named '#document'. Forgiving: an end tag
 * closes the nearest open element of that name, and unclosed elements are closed at the end.
 */
export function parseXml(src: string): XmlElement {
  const root: XmlElement = { name: '#document', attrs: {}, children: [] };
  const stack: XmlElement[] = [root];
  for (const token of tokenize(src)) {
    const top = stack[stack.length - 1];
    if (token.type === 'text') {
      top.children.push(decodeEntities(token.text));
    } else if (token.type === 'open') {
      const el: XmlElement = { name: token.name, attrs: token.attrs, children: [] };
      top.children.push(el);
      if (!token.selfClosing) stack.push(el);
    } else {
      for (let k = stack.length - 1; k > 0; k--) {
        if (stack[k].name === token.name) {
          stack.length = k;
          break;
        }
      }
    }
  }
  return root;
}

/** All descendant elements named `name` (local name, lower case), in document order. */
export function findAll(el: XmlElement, name: string): XmlElement[] {
  const out: XmlElement[] = [];
  const walk = (node: XmlElement) => {
    for (const child of node.children) {
      if (typeof child === 'string') continue;
      if (child.name === name) out.push(child);
      walk(child);
    }
  };
  walk(el);
  return out;
}

export function findFirst(el: XmlElement, name: string): XmlElement | undefined {
  for (const child of el.children) {
    if (typeof child === 'string') continue;
    if (child.name === name) return child;
    const inner = findFirst(child, name);
    if (inner) return inner;
  }
  return undefined;
}

/** The element's text content with white space collapsed. */
export function textContent(el: XmlElement): string {
  const parts: string[] = [];
  const walk = (node: XmlElement) => {
    for (const child of node.children) {
      if (typeof child === 'string') parts.push(child);
      else walk(child);
    }
  };
  walk(el);
  return parts.join('').replace(/\s+/g, ' ').trim();
}
