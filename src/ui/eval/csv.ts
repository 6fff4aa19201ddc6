/**
 * @file CSV for the evaluation exports, written by papaparse (quoting, line breaks) with formula
 * escaping: cells hold file names, questions and model output, which are data and must never run
 * as spreadsheet formulas.
 *
 * papaparse's own `escapeFormulae: true` pattern (/^[=+\-@\t\r].*$/) misses a cell that starts
 * with "=" and holds a line break (`.` stops at it), and model answers do: a leading character is
 * what a spreadsheet looks at, so this pattern looks at nothing else.
 */
import Papa from 'papaparse';

const FORMULA_START = /^[=+\-@\t\r]/;

export function toCsv(fields: readonly string[], data: readonly (readonly unknown[])[]): string {
  return Papa.unparse(
    { fields: [...fields], data: data.map((row) => [...row]) },
    { escapeFormulae: FORMULA_START, newline: '\n' },
  );
}
