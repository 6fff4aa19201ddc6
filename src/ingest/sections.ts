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
