/**
 * @file HTML and XHTML to visible plain text, with the headings found on the way.
 *
 * Parsed by our own tokenizer (markup.ts), never DOMParser, so this runs in workers too. Rules,
 * close to what a browser shows: the head, scripts, styles, templates, `noscript`, SVG, media
 * and elements with `hidden` or `display: none` are dropped; white space collapses as in HTML
 * except inside `pre`; block elements (p, div, h1-h6, blockquote, ...) become paragraph breaks
 * (a blank line), list items, table rows, `dt`/`dd` and `br` become line breaks, table cells are
 * separated by a tab; `&nbsp;` becomes a space and soft hyphens disappear.
 */
import { decodeEntities, tokenize } from './markup';

export interface HtmlHeading {
  /** 1 for h1 .. 6 for h6. */
  level: number;
  title: string;
  /** Character span of the heading's text in the output text. */
  start: number;
  end: number;
}

export interface HtmlText {
  text: string;
  headings: HtmlHeading[];
}

const SKIPPED = new Set([
  'head',
  'title',
  'script',
  'style',
  'template',
  'noscript',
  'svg',
  'canvas',
  'iframe',
  'object',
  'audio',
  'video',
]);

const PARAGRAPH_BLOCKS = new Set([
  'address',
  'article',
  'aside',
  'blockquote',
  'body',
  'center',
  'details',
  'dialog',
  'div',
  'dl',
  'fieldset',
  'figure',
  'footer',
  'form',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'header',
  'hgroup',
  'hr',
  'html',
  'main',
  'nav',
  'ol',
  'p',
  'pre',
  'section',
  'summary',
  'table',
  'ul',
]);

const LINE_BLOCKS = new Set([
  'li',
  'dt',
  'dd',
  'tr',
  'caption',
  'figcaption',
  'legend',
  'option',
  'br',
]);

const VOID = new Set([
  'area',
  'base',
  'br',
  'col',
  'embed',
  'hr',
  'img',
  'input',
  'link',
  'meta',
  'param',
  'source',
  'track',
  'wbr',
]);

const HEADING = /^h([1-6])$/;

export function htmlToText(src: string): HtmlText {
  const parts: string[] = [];
  let length = 0;
  /** Newlines at the end of the output so far (breaks never stack beyond what is asked). */
  let trailingNewlines = 0;
  let pendingBreak = 0;
  let pendingCell = false;
  let pendingSpace = false;
  let preDepth = 0;
  let justOpenedPre = false;
  let skip: { name: string; depth: number } | null = null;
  let heading: { level: number; start: number; firstPart: number } | null = null;
  const headings: HtmlHeading[] = [];

  const push = (s: string) => {
    parts.push(s);
    length += s.length;
    let nl = 0;
    while (nl < s.length && s.charCodeAt(s.length - 1 - nl) === 0x0a) nl++;
    trailingNewlines = nl === s.length ? trailingNewlines + nl : nl;
  };

  /** Emit what separates the next visible text from the text before it. */
  const separate = () => {
    if (length > 0) {
      if (pendingBreak > 0) {
        const missing = pendingBreak - trailingNewlines;
        if (missing > 0) push('\n'.repeat(missing));
      } else if (pendingCell) {
        push('\t');
      } else if (pendingSpace) {
        push(' ');
      }
    }
    pendingBreak = 0;
    pendingCell = false;
    pendingSpace = false;
  };

  /** Write visible text: what separates it from the text before, then the text. */
  const write = (visible: string) => {
    separate();
    if (heading && heading.start < 0) {
      heading = { ...heading, start: length, firstPart: parts.length };
    }
    push(visible.replace(/\u00a0/g, ' '));
  };

  const emit = (raw: string) => {
    const decoded = decodeEntities(raw).replace(/\u00ad/g, '');
    if (preDepth > 0) {
      let t = decoded.replace(/\r\n?/g, '\n');
      if (justOpenedPre && t.startsWith('\n')) t = t.slice(1);
      justOpenedPre = false;
      if (t) write(t);
      return;
    }
    // Only ASCII white space collapses in HTML; a no-break space is kept (as a plain space).
    const collapsed = decoded.replace(/[ \t\n\r\f]+/g, ' ');
    const leading = collapsed.startsWith(' ');
    const trailing = collapsed.length > 1 && collapsed.endsWith(' ');
    const core = collapsed.slice(leading ? 1 : 0, trailing ? -1 : undefined);
    if (leading) pendingSpace = true;
    if (!core) return;
    write(core);
    if (trailing) pendingSpace = true;
  };

  const blockBoundary = (name: string) => {
    if (PARAGRAPH_BLOCKS.has(name)) pendingBreak = Math.max(pendingBreak, 2);
    else if (LINE_BLOCKS.has(name)) pendingBreak = Math.max(pendingBreak, 1);
    else if (name === 'td' || name === 'th') pendingCell = true;
  };

  for (const token of tokenize(src)) {
    if (skip) {
      if (token.type === 'open' && token.name === skip.name && !token.selfClosing) skip.depth++;
      else if (token.type === 'close' && token.name === skip.name && --skip.depth === 0) {
        skip = null;
      }
      continue;
    }
    if (token.type === 'text') {
      emit(token.text);
      continue;
    }
    const { name } = token;
    if (token.type === 'open') {
      const hidden =
        'hidden' in token.attrs || /display\s*:\s*none/i.test(token.attrs['style'] ?? '');
      if (SKIPPED.has(name) || hidden) {
        if (!token.selfClosing && !VOID.has(name)) skip = { name, depth: 1 };
        continue;
      }
      blockBoundary(name);
      if (name === 'pre' && !token.selfClosing) {
        preDepth++;
        justOpenedPre = true;
      }
      const level = HEADING.exec(name);
      if (level && !token.selfClosing)
        heading = { level: Number(level[1]), start: -1, firstPart: -1 };
    } else {
      blockBoundary(name);
      if (name === 'pre' && preDepth > 0) preDepth--;
      if (heading && HEADING.test(name)) {
        const title =
          heading.start >= 0
            ? parts.slice(heading.firstPart).join('').replace(/\s+/g, ' ').trim()
            : '';
        if (title) {
          headings.push({ level: heading.level, title, start: heading.start, end: length });
        }
        heading = null;
      }
    }
  }
  return { text: parts.join(''), headings };
}

/**
 * The charset an HTML or XML file declares in its first 1024 bytes (`<meta charset>`, the
 * http-equiv form, or the XML declaration), or undefined.
 */
export function declaredCharset(bytes: Uint8Array): string | undefined {
  const head = new TextDecoder('windows-1252').decode(bytes.subarray(0, 1024));
  const m =
    /<meta[^>]+charset\s*=\s*["']?\s*([\w.:-]+)/i.exec(head) ??
    /<\?xml[^>]+encoding\s*=\s*["']([\w.:-]+)["']/i.exec(head);
  return m?.[1];
}
