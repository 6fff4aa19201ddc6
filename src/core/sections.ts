/**
 * @file Document structure (chapters, pages, headings) as fragment labels.
 */

/** The innermost section holding each fragment's start (sections sorted by start, nested, never crossing). */
export function labelFragments(
  starts: ArrayLike<number>,
  sections: readonly { title: string; start: number; end: number }[],
): string[] {
  const labels: string[] = new Array(starts.length).fill('');
  let s = 0;
  const open: { title: string; end: number }[] = [];
  for (let i = 0; i < starts.length; i++) {
    const at = starts[i];
    while (s < sections.length && sections[s].start <= at) open.push(sections[s++]);
    // What stays on top after popping the ended ones holds `at`, and is the latest-started such.
    while (open.length && open[open.length - 1].end <= at) open.pop();
    labels[i] = open.length ? open[open.length - 1].title : '';
  }
  return labels;
}
