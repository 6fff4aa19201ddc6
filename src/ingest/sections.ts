/**
 * @file Structure marks (headings, chapter lines) to nested sections.
 */
import type { Section } from './types';

/** A place where a section starts, with its outline level (1 is the outermost). */
export interface SectionMark {
  level: number;
  title: string;
  start: number;
  kind: Section['kind'];
}

function isSpace(code: number): boolean {
  return code === 0x20 || code === 0x0a || code === 0x09 || code === 0x0d || code === 0x0c;
}

/**
 * Outline sections: each mark's section runs to the next mark of the same or an outer level (or
 * to `end`), without trailing white space. Sections therefore nest and never cross.
 */
export function outlineSections(marks: SectionMark[], text: string, end = text.length): Section[] {
  const sorted = [...marks].sort((a, b) => a.start - b.start || a.level - b.level);
  const sections: Section[] = [];
  for (let i = 0; i < sorted.length; i++) {
    const mark = sorted[i];
    let stop = end;
    for (let j = i + 1; j < sorted.length; j++) {
      if (sorted[j].level <= mark.level) {
        stop = sorted[j].start;
        break;
      }
    }
    while (stop > mark.start && isSpace(text.charCodeAt(stop - 1))) stop--;
    if (stop > mark.start) {
      sections.push({ title: mark.title, start: mark.start, end: stop, kind: mark.kind });
    }
  }
  return sortSections(sections);
}

/** Sort by start, outer (longer) before inner at the same start. */
export function sortSections(sections: Section[]): Section[] {
  return sections.sort((a, b) => a.start - b.start || b.end - a.end);
}

/**
 * Bare heading lines of plain text written one paragraph per line (papers exported as text,
 * Qasper's "Introduction", "Methodology ::: Data"). Hard-wrapped books are never
 * searched: the rules below would take a poem's lines or a paragraph's short last line for
 * headings, and their chapter lines are found by their keywords instead (plainTextSections asks
 * for bare headings only where it found no chapter line).
 *
 * The text is one paragraph per line when at least half of its non-blank characters lie on lines
 * of 200 characters or more (every Qasper paper: 76-100%; War and Peace's Gutenberg text: 80%;
 * the other Gutenberg books of the tests: 0%). There a line is a heading when
 * - it has 1-12 words and at most 100 characters, starts with a capital letter or a digit, and
 *   is not indented (a poem's verses are);
 * - it does not end like a sentence or a clause (. ? ! , ; :) nor with a quotation mark, bracket
 *   or footnote star, holds no quotation marks, and is not a formula placeholder (INLINEFORM0);
 * - the line before it (blank lines skipped) is absent, ends a sentence (. ? ! : or a closing
 *   quotation mark or bracket, or is a formula placeholder on its own) or could itself be a
 *   heading, so it is not a sentence's tail;
 * - the line after it (blank lines skipped) is prose (≥ 100 characters, or ≥ 6 words ending with
 *   . ? ! :) or another heading (a section directly followed by its first subsection).
 * " ::: " separates the levels of a heading's path; `level` is the outline level of its first.
 */
export function bareHeadingMarks(
  text: string,
  from = 0,
  to = text.length,
  level = 1,
): SectionMark[] {
  const lines: { start: number; text: string; indented: boolean }[] = [];
  let long = 0;
  let all = 0;
  for (let at = from; at < to;) {
    let end = text.indexOf('\n', at);
    if (end < 0 || end > to) end = to;
    const raw = text.slice(at, end);
    const line = raw.trim();
    if (line) {
      lines.push({ start: at + raw.indexOf(line[0]), text: line, indented: /^\s/.test(raw) });
      all += line.length;
      if (line.length >= 200) long += line.length;
    }
    at = end + 1;
  }
  if (all === 0 || long * 2 < all) return [];

  const candidate = lines.map(({ text: t, indented }) => {
    const words = t.split(/\s+/).length;
    return (
      !indented &&
      words <= 12 &&
      t.length <= 100 &&
      /^[A-Z0-9]/.test(t) &&
      !/[.?!,;:'"“”‘’)\]*]$/.test(t) &&
      !/["“”]/.test(t) &&
      !/(?:INLINE|DISPLAY)FORM\d/.test(t)
    );
  });
  // A formula standing on its own line (Qasper's DISPLAYFORM0) ends what it belongs to.
  const endsSentence = (t: string) =>
    /[.?!:"”’)\]]$/.test(t) || /^(?:INLINE|DISPLAY)FORM\d+$/.test(t);
  const prose = (t: string) => t.length >= 100 || (t.split(/\s+/).length >= 6 && /[.?!:]$/.test(t));
  // From the end, so "followed by another heading" sees that heading's verdict.
  const heading = new Array<boolean>(lines.length).fill(false);
  for (let k = lines.length - 1; k >= 0; k--) {
    if (!candidate[k]) continue;
    if (k > 0 && !endsSentence(lines[k - 1].text) && !candidate[k - 1]) continue;
    const next = lines[k + 1];
    heading[k] = !!next && (prose(next.text) || heading[k + 1]);
  }
  const marks: SectionMark[] = [];
  lines.forEach((line, k) => {
    if (!heading[k]) return;
    const parts = line.text.split(' ::: ');
    marks.push({
      level: level + parts.length - 1,
      title: parts.join(' > '),
      start: line.start,
      kind: 'heading',
    });
  });
  return marks;
}
