import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { sharedDatasetPath } from '../../test/glove';
import { markdownSections, plainTextSections } from './text';

const GUTENBERG = sharedDatasetPath('gutenberg');
const book = (name: string) => readFileSync(`${GUTENBERG}/${name}`, 'utf8').replace(/\r\n/g, '\n');

describe('plainTextSections', () => {
  it("finds Alice's chapters with their titles", () => {
    const text = book('pg11.txt');
    const sections = plainTextSections(text);
    expect(sections.map((s) => s.title)).toEqual([
      'CHAPTER II. The Pool of Tears',
      'CHAPTER III. A Caucus-Race and a Long Tale',
      'CHAPTER IV. The Rabbit Sends in a Little Bill',
      'CHAPTER V. Advice from a Caterpillar',
      'CHAPTER VI. Pig and Pepper',
      'CHAPTER VII. A Mad Tea-Party',
      "CHAPTER VIII. The Queen's Croquet-Ground",
      "CHAPTER IX. The Mock Turtle's Story",
      'CHAPTER X. The Lobster Quadrille',
      'CHAPTER XI. Who Stole the Tarts?',
      "CHAPTER XII. Alice's Evidence",
    ]);
    // Chapters tile the book from the first heading on, gaps being only blank lines.
    for (let i = 1; i < sections.length; i++) {
      expect(text.slice(sections[i - 1].end, sections[i].start)).toMatch(/^\s+$/);
    }
    expect(sections[sections.length - 1].end).toBe(text.trimEnd().length);
  });

  it('understands "Book the Second--..." and "Chapter 2 THE SHADOW" headings', () => {
    expect(plainTextSections(book('pg98.txt')).map((s) => s.title)).toEqual([
      'Book the Second--the Golden Thread',
      'Book the Third--the Track of a Storm',
    ]);
    const peterPan = plainTextSections(book('pg16.txt'));
    expect(peterPan).toHaveLength(16);
    expect(peterPan[0].title).toBe('Chapter 2 THE SHADOW');
  });

  it('ignores keyword lines inside paragraphs and words that are not numbers', () => {
    const text =
      'Chapter I\n\nHe read the\nChapter II of his notes.\n\nPart of the\ncrowd.\n\n' +
      'Part civil, part not.\n\nCHAPTER III\n\nEnd.';
    expect(plainTextSections(text).map((s) => [s.title, s.start])).toEqual([
      ['Chapter I', 0],
      ['CHAPTER III', text.indexOf('CHAPTER III')],
    ]);
  });

  it('finds nothing in a book without chapter headings', () => {
    expect(plainTextSections(book('pg5200.txt'))).toEqual([]);
  });
});

describe('markdownSections', () => {
  it('makes nested sections from #, ## and ### headings, not from ####', () => {
    const md = [
      '# Book',
      '',
      'Intro.',
      '## One',
      'Text one.',
      '### One point one',
      'Detail.',
      '#### Too deep',
      'More.',
      '## Two ##',
      'Text two.',
      '',
    ].join('\n');
    const sections = markdownSections(md);
    expect(sections.map((s) => [s.title, md.slice(s.start, s.end)])).toEqual([
      ['Book', md.trimEnd()],
      ['One', md.slice(md.indexOf('## One'), md.indexOf('## Two')).trimEnd()],
      ['One point one', md.slice(md.indexOf('### One'), md.indexOf('## Two')).trimEnd()],
      ['Two', '## Two ##\nText two.'],
    ]);
    expect(sections.every((s) => s.kind === 'heading')).toBe(true);
  });

  it('reads setext headings and ignores # lines inside fenced code', () => {
    const md = [
      'Title',
      '=====',
      '',
      'Some text.',
      '',
      '```sh',
      '# not a heading',
      '```',
      '',
      'Sub *part*',
      '---',
      '',
      'A paragraph',
      'of two lines',
      '---',
      '',
      '~~~',
      '## also not',
      '~~~',
    ].join('\n');
    expect(markdownSections(md).map((s) => s.title)).toEqual(['Title', 'Sub part']);
  });

  it('strips inline Markdown from heading titles', () => {
    const md = '# A [link](http://x.org) and `code` and **bold** #\n\ntext';
    expect(markdownSections(md)[0].title).toBe('A link and code and bold');
  });
});
