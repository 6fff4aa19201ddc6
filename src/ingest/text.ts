/**
 * @file Structure of plain text and Markdown. The text itself is kept as the user dropped it
 * (line endings aside); only sections are found.
 *
 * Plain text: lines that look like chapter headings in books ("CHAPTER IV.", "Chapter 12 The
 * Flight", "BOOK ONE: 1805", "Book the Second--the Golden Thread", "ADVENTURE II. ...") at the start
 * of a line, after a blank line; also "EPILOGUE" and "PROLOGUE" lines. BOOK/PART/VOLUME and
 * epilogue lines hold the CHAPTER lines that follow them.
 * A Project Gutenberg "*** START OF ... ***" / "*** END OF ... ***" pair, when present, becomes an
 * outermost section spanning the book between the markers; the licence text stays in `text`.
 *
 * Markdown: ATX headings (`#`, `##`, `###`) and setext headings (a one-line paragraph underlined
 * with `===` or `---`), not inside fenced code blocks, become nested 'heading' sections.
 */
import { bareHeadingMarks, outlineSections, type SectionMark } from './sections';
import type { Section } from './types';

const NUMBER_WORDS = new Set(
  (
    'one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen ' +
    'sixteen seventeen eighteen nineteen twenty first second third fourth fifth sixth seventh ' +
    'eighth ninth tenth eleventh twelfth thirteenth fourteenth fifteenth sixteenth seventeenth ' +
    'eighteenth nineteenth twentieth last final'
  ).split(' '),
);

const OUTER_WORDS = new Set(['BOOK', 'Book', 'PART', 'Part', 'VOLUME', 'Volume']);

/** The first line after a blank line (or of the text): where a chapter heading may stand. */
const AFTER_BLANK_LINE = /(?:^|\n[ \t]*\n)([^\n]{1,120})(?=\n|$)/g;

/** A keyword, then a number: "CHAPTER IV.", "Book the Second--...", "ADVENTURE II. ...". */
const KEYWORD_LINE =
  /^(BOOK|Book|PART|Part|VOLUME|Volume|CHAPTER|Chapter|ADVENTURE|Adventure|STAVE|Stave)[ \t]+(?:(?:THE|[Tt]he)[ \t]+)?([A-Za-z0-9]+)/;

/** "EPILOGUE", "FIRST EPILOGUE: 1813 - 20", "Prologue". */
const LOGUE_LINE =
  /^(?:(?:FIRST|SECOND|THIRD|First|Second|Third)[ \t]+)?(?:EPILOGUE|Epilogue|PROLOGUE|Prologue)\b.{0,40}$/;

function isChapterNumber(token: string): boolean {
  return /^(?:[IVXLCDM]+|\d{1,4})$/.test(token) || NUMBER_WORDS.has(token.toLowerCase());
}

/** The outline level of a chapter-like line (1: book, part, epilogue; 2: chapter), or 0. */
function chapterLevel(line: string): number {
  const m = KEYWORD_LINE.exec(line);
  if (m) return isChapterNumber(m[2]) ? (OUTER_WORDS.has(m[1]) ? 1 : 2) : 0;
  return LOGUE_LINE.test(line) ? 1 : 0;
}

const GUTENBERG_START =
  /^\*{3} ?START OF (?:THE|THIS) PROJECT GUTENBERG E-?BOOK,?(.*?)\*{3}[ \t]*$/m;
const GUTENBERG_END = /^\*{3} ?END OF (?:THE|THIS) PROJECT GUTENBERG E-?BOOK/m;

/** Sections of a plain-text book. `text` has `\n` line endings. */
export function plainTextSections(text: string): Section[] {
  const marks: SectionMark[] = [];
  let bodyStart = 0;
  let bodyEnd = text.length;

  const start = GUTENBERG_START.exec(text);
  if (start) {
    bodyStart = start.index + start[0].length;
    const endMatch = GUTENBERG_END.exec(text.slice(bodyStart));
    if (endMatch) bodyEnd = bodyStart + endMatch.index;
    while (bodyStart < bodyEnd && /\s/.test(text[bodyStart])) bodyStart++;
    const title = start[1].trim();
    marks.push({
      level: 0,
      title: title ? `Project Gutenberg text: ${title}` : 'Project Gutenberg text',
      start: bodyStart,
      kind: 'heading',
    });
  }

  AFTER_BLANK_LINE.lastIndex = 0;
  for (let m = AFTER_BLANK_LINE.exec(text); m; m = AFTER_BLANK_LINE.exec(text)) {
    const line = m[1];
    const lineStart = m.index + m[0].length - line.length;
    if (lineStart < bodyStart || lineStart >= bodyEnd) continue;
    const level = chapterLevel(line);
    if (level > 0) marks.push({ level, title: line.trim(), start: lineStart, kind: 'chapter' });
  }
  // Bare heading lines of one-paragraph-per-line text (sections.ts), only
  // where no chapter line was found (a book's chapters are its structure; papers have none).
  if (!marks.some((m) => m.kind === 'chapter'))
    marks.push(...bareHeadingMarks(text, bodyStart, bodyEnd, 1));
  return outlineSections(marks, text, bodyEnd);
}

const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const ATX = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/;
const SETEXT = /^ {0,3}(=+|-+)[ \t]*$/;

/** Markdown heading levels that become sections. */
const MAX_MARKDOWN_LEVEL = 3;

/** Heading text without inline Markdown: links keep their text; emphasis and code marks go. */
function plainHeading(title: string): string {
  return title
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/(\*{1,3}|_{1,3}|`+)(\S(?:.*?\S)?)\1/g, '$2')
    .replace(/\s+/g, ' ')
    .trim();
}

/** Sections of a Markdown text. `text` has `\n` line endings. */
export function markdownSections(text: string): Section[] {
  const marks: SectionMark[] = [];
  let fence: string | null = null;
  let offset = 0;
  let prev: { start: number; line: string; paragraphStart: boolean } | null = null;
  let prevBlank = true;
  for (const line of text.split('\n')) {
    const lineStart = offset;
    offset += line.length + 1;
    const fenceMatch = FENCE.exec(line);
    if (fence) {
      if (fenceMatch && fenceMatch[1][0] === fence[0] && fenceMatch[1].length >= fence.length) {
        fence = null;
      }
      prev = null;
      prevBlank = false;
      continue;
    }
    if (fenceMatch) {
      fence = fenceMatch[1];
      prev = null;
      prevBlank = false;
      continue;
    }
    const blank = !/\S/.test(line);
    const atx = ATX.exec(line);
    const setext = SETEXT.exec(line);
    if (atx) {
      const level = atx[1].length;
      const title = plainHeading(atx[2] ?? '');
      if (level <= MAX_MARKDOWN_LEVEL && title) {
        marks.push({ level, title, start: lineStart, kind: 'heading' });
      }
      prev = null;
    } else if (setext && prev?.paragraphStart && !blank) {
      const level = setext[1][0] === '=' ? 1 : 2;
      const title = plainHeading(prev.line);
      if (title) marks.push({ level, title, start: prev.start, kind: 'heading' });
      prev = null;
    } else {
      prev = blank ? null : { start: lineStart, line, paragraphStart: prevBlank };
    }
    prevBlank = blank;
  }
  return outlineSections(marks, text);
}
