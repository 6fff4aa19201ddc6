import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanTitle, gutenbergTitle } from './title';

const ALICE = resolve(__dirname, '../../../shared/datasets/gutenberg/pg11.txt');

describe('a book’s own title', () => {
  it('reads the Title: line of a Project Gutenberg header (CRLF, as Gutenberg serves it)', () => {
    // The shared copy of Alice has its header stripped; this is the header Gutenberg serves with it.
    const header = [
      "The Project Gutenberg eBook of Alice's Adventures in Wonderland",
      '',
      'This ebook is for the use of anyone anywhere in the United States and',
      'most other parts of the world at no cost and with almost no restrictions',
      '',
      "Title: Alice's Adventures in Wonderland",
      '',
      'Author: Lewis Carroll',
      '',
      'Release date: June 27, 2008 [eBook #11]',
      '',
      'Language: English',
      '',
      "*** START OF THE PROJECT GUTENBERG EBOOK ALICE'S ADVENTURES IN WONDERLAND ***",
      '',
    ].join('\r\n');
    const alice = readFileSync(ALICE, 'utf8');
    expect(gutenbergTitle(header + alice)).toBe("Alice's Adventures in Wonderland");
    // The stripped text alone names no title: the file name stays.
    expect(gutenbergTitle(alice)).toBeUndefined();
  });

  it('joins a title continued on an indented line, and stops at the START line', () => {
    const text =
      'The Project Gutenberg eBook of X\n\nTitle: War and Peace\n        A Novel\n\nAuthor: Leo Tolstoy\n\n' +
      '*** START OF THE PROJECT GUTENBERG EBOOK WAR AND PEACE ***\n\nTitle: not this one\n';
    expect(gutenbergTitle(text)).toBe('War and Peace A Novel');
  });

  it('leaves a text without a Gutenberg header alone', () => {
    expect(gutenbergTitle('Title: My notes\n\nSome text.')).toBeUndefined();
    expect(gutenbergTitle('Just a story.')).toBeUndefined();
  });

  it('keeps a title as text: control characters out, long ones cut', () => {
    expect(cleanTitle('  <b>Bold</b>\u0000 title\n ')).toBe('<b>Bold</b> title');
    expect(cleanTitle('x'.repeat(500))!.length).toBe(200);
    expect(cleanTitle('   ')).toBeUndefined();
  });
});
