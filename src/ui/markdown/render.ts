/**
 * @file Answers as Markdown, rendered safely, with citations as links.
 *
 * Library choices (docs/ux.md): markdown-it (maintained, CommonMark, a plugin API for our
 * citation syntax) with raw HTML off, images off (an image would fetch from any host the model
 * names) and its own link validator (no `javascript:`); DOMPurify (the maintained sanitiser)
 * over the result as a second wall. Model output is data: nothing in it may run.
 */
import DOMPurify from 'dompurify';
import MarkdownIt from 'markdown-it';
import type { MarkdownIt as Markdown, StateInline } from 'markdown-it';

/** What a citation label stands for: the prompt's sources (core/prompt.ts PromptSource). */
export interface CitationSource {
  label: number;
  index: number;
  location: string;
}

// One bracket of numbers and ranges (core/citations.ts's syntax), anchored at the cursor.
const CITATION = /\[\s*\d+(?:\s*[-–—]\s*\d+)?(?:\s*[,;]\s*\d+(?:\s*[-–—]\s*\d+)?)*\s*\]/y;

/** The labels one bracket names, in order, split into those that exist and those that do not. */
export function bracketLabels(
  bracket: string,
  count: number,
): { valid: number[]; invalid: number[] } {
  const valid: number[] = [];
  const invalid: number[] = [];
  const seen = new Set<number>();
  const add = (n: number) => {
    if (seen.has(n)) return;
    seen.add(n);
    (n >= 1 && n <= count ? valid : invalid).push(n);
  };
  for (const part of bracket.slice(1, -1).split(/[,;]/)) {
    const [a, b] = part.split(/[-–—]/).map((x) => Number.parseInt(x.trim(), 10));
    if (b === undefined) add(a);
    else {
      // A range: its in-range part is cited; an end beyond the excerpts is named invalid, and
      // the loop is clamped so "[1-99999]" costs no more than `count` steps.
      const lo = Math.min(a, b);
      const hi = Math.max(a, b);
      for (let n = Math.max(1, lo); n <= Math.min(count, hi); n++) add(n);
      if (hi > count) add(hi);
      if (lo < 1) add(lo);
    }
  }
  return { valid, invalid };
}

const escape = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * Where a link the model wrote leads, as a person reads it: the host of a web address, else the
 * scheme (`mailto`). Null for an address that cannot be parsed.
 */
export function linkHost(href: string): string | null {
  try {
    const url = new URL(href);
    return url.host || url.protocol.replace(/:$/, '');
  } catch {
    return null;
  }
}

function markdownFor(sources: readonly CitationSource[] | null): Markdown {
  const md = new MarkdownIt({ html: false, linkify: false, typographer: false, breaks: false });
  md.disable(['image']);
  // A link the model wrote must never take the reader off the app: it opens in a new tab,
  // without an opener or a referrer, and says where it leads before it is clicked. A link that
  // is not an absolute address (relative, or unparsable) would open inside the app: plain text.
  const open: (string | null)[] = [];
  md.renderer.rules.link_open = (tokens, idx, options, _env, self) => {
    const token = tokens[idx];
    const host = linkHost(String(token.attrGet('href') ?? ''));
    open.push(host);
    if (host === null) return '<span class="model-link model-link--text">';
    token.attrSet('target', '_blank');
    token.attrSet('rel', 'noopener noreferrer');
    token.attrSet('class', 'model-link');
    token.attrSet('data-host', host);
    token.attrSet('title', `Opens ${host} in a new tab`);
    return self.renderToken(tokens, idx, options);
  };
  md.renderer.rules.link_close = (tokens, idx, options, _env, self) => {
    const host = open.pop();
    if (host == null) return '</span>';
    return `${self.renderToken(tokens, idx, options)}<span class="model-link__host"> (${escape(host)} ↗)</span>`;
  };
  // Without sources (a chat reply) brackets are plain text.
  if (!sources) return md;
  md.inline.ruler.before('link', 'citation', (state: StateInline, silent: boolean) => {
    if (state.src.charCodeAt(state.pos) !== 0x5b /* [ */) return false;
    CITATION.lastIndex = state.pos;
    const m = CITATION.exec(state.src);
    if (!m) return false;
    // "[1](url)" is a Markdown link, not a citation.
    if (state.src.charCodeAt(state.pos + m[0].length) === 0x28 /* ( */) return false;
    if (!silent) {
      const token = state.push('citation', '', 0);
      token.content = m[0];
      token.meta = bracketLabels(m[0], sources.length);
    }
    state.pos += m[0].length;
    return true;
  });
  md.renderer.rules.citation = (tokens, idx) => {
    const { valid, invalid } = tokens[idx].meta as { valid: number[]; invalid: number[] };
    const links = valid.map((label) => {
      const s = sources[label - 1];
      return `<a href="#fragment-${s.index}" class="cite" data-fragment="${s.index}" data-label="${label}" title="Open excerpt ${label}: ${escape(s.location)}">[${label}]</a>`;
    });
    const bad = invalid.map(
      (label) =>
        `<span class="cite cite--invalid" data-invalid-label="${label}" title="The model cited excerpt ${label}, but it was given only ${sources.length}.">[${label}?]</span>`,
    );
    return `<span class="cite-group">${[...links, ...bad].join('')}</span>`;
  };
  return md;
}

/**
 * The answer's HTML: Markdown rendered with raw HTML escaped, sanitised, citations as links to
 * their fragments and invalid ones marked. Safe for innerHTML.
 */
export function renderAnswerHtml(text: string, sources: readonly CitationSource[] | null): string {
  const html = markdownFor(sources).render(text);
  return DOMPurify.sanitize(html, {
    FORBID_TAGS: ['img', 'style', 'form', 'input', 'iframe', 'object', 'embed', 'svg', 'math'],
    FORBID_ATTR: ['style'],
    // The new-tab target of a model's link (markdownFor); rel="noopener noreferrer" goes with it.
    ADD_ATTR: ['target'],
  });
}

/**
 * The answer as Markdown for the clipboard: citations stay `[n]` and a list of what each label
 * stands for follows; a citation of an excerpt that does not exist is marked `[n?]`.
 */
export function answerMarkdownForCopy(text: string, sources: readonly CitationSource[]): string {
  const cited = new Set<number>();
  const body = text.replace(new RegExp(CITATION.source, 'g'), (bracket) => {
    const { valid, invalid } = bracketLabels(bracket, sources.length);
    for (const l of valid) cited.add(l);
    if (invalid.length === 0) return bracket;
    return [...valid.map((l) => `[${l}]`), ...invalid.map((l) => `[${l}?]`)].join('');
  });
  const list = [...cited].sort((a, b) => a - b).map((l) => `- [${l}] ${sources[l - 1].location}`);
  return list.length ? `${body.trimEnd()}\n\nSources:\n\n${list.join('\n')}\n` : body;
}
