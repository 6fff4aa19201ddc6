/**
 * @file Counts as the page writes them: thousands separated ("30,000") and the noun agreeing
 * with the number ("1 fragment", "2 fragments"). One helper, so no panel writes "1 fragments" or
 * "30000" again. The page's text is English, so the numbers are too, whatever the browser's locale.
 */

const NUMBER = new Intl.NumberFormat('en');

/** 30000 → "30,000". */
export function formatCount(n: number): string {
  return NUMBER.format(n);
}

/** Nouns whose plural is not the singular plus "s". */
const IRREGULAR: Readonly<Record<string, string>> = {
  match: 'matches',
  entry: 'entries',
  repository: 'repositories',
  directory: 'directories',
};

/** The plural of a noun the page counts. */
export function plural(noun: string): string {
  return IRREGULAR[noun] ?? `${noun}s`;
}

/** "1 fragment", "30,000 fragments"; `pluralNoun` where the plural is not regular. */
export function countOf(n: number, noun: string, pluralNoun: string = plural(noun)): string {
  return `${formatCount(n)} ${n === 1 ? noun : pluralNoun}`;
}
