/**
 * @file Sections of the benchmark's documents, for the section relation and the section-path
 * prefix. Books and bAbI's Moby Dick passages: the app's own plain-text ingest
 * (`plainTextSections`: "CHAPTER 12." lines after a blank line). Qasper: the same ingest, whose
 * bare-heading rule (src/ingest/sections.ts, `bareHeadingMarks`) reads the papers' heading lines
 * ("Introduction", "Methodology ::: Data") in text written one paragraph per line; the benchmark
 * had its own looser rule before. QuALITY and SFiction are short stories without
 * headings; MuSiQue's paragraphs have no structure above them.
 */
import { plainTextSections } from '../../src/ingest/text';
import type { Section } from '../../src/ingest/types';

export function benchSections(set: string, source: string): Section[] {
  if (set === 'musique') return [];
  return plainTextSections(source);
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
