import Papa from 'papaparse';
import { describe, expect, it } from 'vitest';
import { toCsv } from './csv';

describe('toCsv', () => {
  it('quotes, keeps line breaks, and never lets a cell start as a formula', () => {
    const csv = toCsv(
      ['name', 'answer', 'n'],
      [
        ['a, "b"', '=HYPERLINK("x")\nsecond line', 3],
        ['+1', '-2', -2],
        ['@SUM(A1)', 'plain', 0],
      ],
    );
    const rows = Papa.parse<string[]>(csv.trim()).data;
    expect(rows[1]).toEqual(['a, "b"', '\'=HYPERLINK("x")\nsecond line', '3']);
    // Text cells that look like formulas are escaped; numbers stay numbers.
    expect(rows[2]).toEqual(["'+1", "'-2", '-2']);
    expect(rows[3]).toEqual(["'@SUM(A1)", 'plain', '0']);
  });
});
