/**
 * Bare heading lines on real texts: Qasper's papers (L-Eval scientific_qa, one
 * paragraph per line), War and Peace's Gutenberg text (also one paragraph per line, with poems,
 * letters and dialogue) and the hard-wrapped Gutenberg books, which are never searched.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { sharedDatasetPath } from '../../test/glove';
import { bareHeadingMarks } from './sections';
import { plainTextSections } from './text';

const DATASETS = sharedDatasetPath();
const book = (name: string) =>
  readFileSync(`${DATASETS}/gutenberg/${name}`, 'utf8').replace(/\r\n/g, '\n');
const qasper = readFileSync(`${DATASETS}/leval/scientific_qa.jsonl`, 'utf8')
  .trim()
  .split('\n')
  .map((l) => (JSON.parse(l) as { input: string }).input);

describe('bare heading lines', () => {
  it('finds a Qasper paper’s headings, nested by " ::: "', () => {
    expect(plainTextSections(qasper[0]).map((s) => s.title)).toEqual([
      'Introduction',
      'Methodology',
      'Experiments and Results',
      'Conclusions',
    ]);
    const third = plainTextSections(qasper[3]);
    expect(third.map((s) => s.title)).toEqual([
      'Introduction',
      'Previous Works',
      'Methodology',
      'Methodology > Fine-Tuning Strategies',
      'Experiments and Results',
      'Experiments and Results > Dataset Description',
      'Experiments and Results > Pre-Processing',
      'Experiments and Results > Implementation and Results Analysis',
      'Experiments and Results > Error Analysis',
      'Conclusion',
    ]);
    // The subsection lies inside its section, which ends where the next top-level one starts.
    const [method, sub, results] = [third[2], third[3], third[4]];
    expect(sub.start).toBeGreaterThan(method.start);
    expect(sub.end).toBeLessThanOrEqual(method.end);
    expect(method.end).toBeLessThanOrEqual(results.start);
    expect(qasper[3].slice(sub.start).startsWith('Methodology ::: Fine-Tuning Strategies\n')).toBe(
      true,
    );
  });

  it('finds headings in every Qasper paper, and every one is a short line of its own', () => {
    let found = 0;
    for (const paper of qasper) {
      const sections = plainTextSections(paper);
      expect(sections.length).toBeGreaterThanOrEqual(3);
      expect(sections[0].title).toMatch(/^(Introduction|Background|Motivation)/);
      for (const s of sections) {
        const line = paper.slice(s.start, paper.indexOf('\n', s.start));
        expect(line.length).toBeLessThanOrEqual(100);
        expect(line).not.toMatch(/[.?!,;:]$/);
      }
      found += sections.length;
    }
    expect(found).toBeGreaterThanOrEqual(250);
  });

  it('takes no prose line of War and Peace for a heading: only letters’ datelines and signatures', () => {
    const text = book('pg2600_war_and_peace.txt');
    // The rules alone on a long novel written one paragraph per line: besides its BOOK and
    // CHAPTER lines, the headers and signatures of the letters quoted in it, a proclamation's
    // title, and one line of prose standing between a poem and a paragraph (the single miss).
    const extra = bareHeadingMarks(text)
      .map((m) => m.title)
      .filter((t) => !/^(CHAPTER|BOOK|FIRST EPILOGUE|SECOND EPILOGUE)\b/.test(t));
    expect(extra).toEqual([
      'JULIE',
      'MARY',
      'NAPOLEON',
      'NAPOLEON',
      'Moscow, 17th November',
      'Petersburg, 23rd November',
      '24th November',
      '27th November',
      '3rd December',
      '7th December',
      '9th December',
      'MARY',
      'Julie said this was charming',
      'NAPOLEON',
      'MOSCOW, OCTOBER 30, 1812',
      'PROCLAMATION',
    ]);
    // In the app a book's chapter lines are its structure: with chapters found, bare headings
    // are not looked for, so War and Peace keeps exactly its books and chapters.
    const kinds = new Set(plainTextSections(text).map((s) => s.kind));
    expect(kinds.has('chapter')).toBe(true);
    expect(
      plainTextSections(text).filter(
        (s) => s.kind === 'heading' && !s.title.startsWith('Project Gutenberg'),
      ),
    ).toEqual([]);
  });

  it('never searches hard-wrapped books', () => {
    const files = readdirSync(`${DATASETS}/gutenberg`).filter(
      (f) => f.endsWith('.txt') && !f.startsWith('pg2600'),
    );
    expect(files.length).toBeGreaterThanOrEqual(10);
    for (const f of files) expect(bareHeadingMarks(book(f)), f).toEqual([]);
  });

  it('leaves short prose lines, list items, verses and formula lines alone', () => {
    const para = (s: string) =>
      `${s} ${'This sentence pads the paragraph to a long line. '.repeat(4)}`;
    const text = [
      'Introduction',
      para('We study headings.'),
      `${para('A paragraph broken off inside its last sentence.')}whose results`,
      'Are shown in Table 1', // the tail of a sentence: the line before does not end one
      para('More prose follows here.'),
      'INLINEFORM0',
      para('A formula placeholder stands alone above.'),
      '“Yes,” said he',
      para('Dialogue is never a heading.'),
      '   Indented verse line',
      para('Verses are indented.'),
      'Item one',
      'Item two',
      'Item three',
      'the lowercase line',
      para('Lists of short lines end in a short line, not prose.'),
    ].join('\n');
    expect(bareHeadingMarks(text).map((m) => m.title)).toEqual(['Introduction']);
  });
});
