/**
 * @file Sections of the benchmark's documents, for the section relation and the section-path
 * prefix (issue 13). Books and bAbI's Moby Dick passages: the app's own plain-text ingest
 * (`plainTextSections`: "CHAPTER 12." lines after a blank line). Qasper: the ingest finds nothing
 * there (its papers are plain text with one paragraph per line and bare heading lines such as
 * "Introduction" or "Methodology ::: Data"), so the benchmark reads those heading lines itself,
 * by the rule below, the structure the paper's own Markdown/PDF would have given. QuALITY and
 * SFiction are short stories without headings; MuSiQue's paragraphs have no structure above them.
 */
import { outlineSections, type SectionMark } from '../../src/ingest/sections';
import { plainTextSections } from '../../src/ingest/text';
import type { Section } from '../../src/ingest/types';

/**
 * A Qasper heading line: 1-12 words, starts with a capital letter or a digit, no sentence
 * punctuation at its end, at most 100 characters, not one of Qasper's formula placeholders
 * (INLINEFORM0, DISPLAYFORM0, which stand on lines of their own); " ::: " separates the levels
 * of its path.
 */
const HEADING_LINE = /^[A-Z0-9][^\n]{0,99}$/;

export function headingLineSections(text: string): Section[] {
  const marks: SectionMark[] = [];
  let offset = 0;
  for (const line of text.split('\n')) {
    const start = offset;
    offset += line.length + 1;
    const t = line.trim();
    const words = t.split(/\s+/).filter(Boolean).length;
    if (!HEADING_LINE.test(t) || words === 0 || words > 12 || /[.?!,;:]$/.test(t)) continue;
    if (/(?:INLINE|DISPLAY)FORM\d/.test(t)) continue;
    const parts = t.split(' ::: ');
    marks.push({ level: parts.length, title: parts.join(' > '), start, kind: 'heading' });
  }
  return outlineSections(marks, text);
}

export function benchSections(set: string, source: string): Section[] {
  if (set === 'musique') return [];
  return set === 'qasper' ? headingLineSections(source) : plainTextSections(source);
}

/**
 * The section path of each fragment start: the titles of every section holding it, outermost
 * first, joined by " > " (a Qasper title already holds its full path). '' outside any section.
 */
export function sectionPaths(starts: ArrayLike<number>, sections: readonly Section[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < starts.length; i++) {
    const at = starts[i];
    const holding = sections.filter((s) => s.start <= at && at < s.end);
    // Sorted outer (earlier start, longer) first by outlineSections; a Qasper title "A > B"
    // under its own "A" keeps only the innermost, which already names A.
    const last = holding[holding.length - 1];
    out.push(
      last && last.title.includes(' > ') ? last.title : holding.map((s) => s.title).join(' > '),
    );
  }
  return out;
}
