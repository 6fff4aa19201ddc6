import { describe, expect, it } from 'vitest';
import { benchSections, sectionPaths } from './sections';

/** One paragraph per line, as Qasper's papers are written: the app's finder reads its headings. */
const long = (s: string) =>
  `${s} ${'Padding words make this paragraph as long as a real one. '.repeat(4)}`;
const PAPER = [
  'Introduction',
  long('We study fake news. It spreads fast on social media BIBREF0.'),
  'INLINEFORM0',
  'Methodology',
  long('We fine-tune a model on the data.'),
  'Methodology ::: Data',
  long('The data has 10,000 tweets, labelled by three annotators.'),
  '[leftmargin=4mm]',
  'Conclusions',
  long('It works.'),
].join('\n');

describe('Qasper sections: the app’s plain-text finder', () => {
  it('reads bare heading lines and " ::: " paths, not sentences, formula placeholders or markup', () => {
    const sections = benchSections('qasper', PAPER);
    expect(sections.map((s) => s.title)).toEqual([
      'Introduction',
      'Methodology',
      'Methodology > Data',
      'Conclusions',
    ]);
    const data = sections[2];
    expect(PAPER.slice(data.start, data.end)).toBe(
      `Methodology ::: Data\n${long('The data has 10,000 tweets, labelled by three annotators.')}\n[leftmargin=4mm]`,
    );
  });

  it('gives each fragment start its section path, outermost first', () => {
    const sections = benchSections('qasper', PAPER);
    const at = (s: string) => PAPER.indexOf(s);
    expect(
      sectionPaths([at('We study'), at('We fine-tune'), at('The data'), at('It works')], sections),
    ).toEqual(['Introduction', 'Methodology', 'Methodology > Data', 'Conclusions']);
  });

  it('books use the app ingest (chapter lines); MuSiQue has no sections', () => {
    const book =
      'CHAPTER 1. Loomings.\n\nCall me Ishmael.\n\nCHAPTER 2. The Carpet-Bag.\n\nI stuffed a shirt.';
    const sections = benchSections('babi', book);
    expect(sectionPaths([book.indexOf('Call'), book.indexOf('I stuffed')], sections)).toEqual([
      'CHAPTER 1. Loomings.',
      'CHAPTER 2. The Carpet-Bag.',
    ]);
    expect(benchSections('musique', book)).toEqual([]);
  });
});
