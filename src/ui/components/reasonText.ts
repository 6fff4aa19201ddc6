import type { SelectionReason } from '../../core/why/reasons';

/**
 * One plain sentence for why the budget took or left a fragment (core/why/reasons.ts decides
 * the reason; this only words it). `unit`: what the budget counts ("word", "line").
 */
export function reasonText(
  reason: SelectionReason | undefined,
  budget: number,
  unit = 'word',
  describe: (index: number) => string = (i) => `#${i + 1}`,
): string {
  const n = (v: number) => `${v.toLocaleString('en')} ${unit}${v === 1 ? '' : 's'}`;
  if (!reason) return '';
  switch (reason.kind) {
    case 'selected':
      return `It was taken: ${n(reason.left)} of the ${n(budget)} context budget were left when its turn came, and it has ${n(reason.cost)}.`;
    case 'score':
      return `Not enough score: the fragments ranked above it filled the ${n(budget)} context budget (${n(reason.left)} left, less than any fragment).`;
    case 'too-long':
      return reason.cost > budget
        ? `Too long: it has ${n(reason.cost)}, more than the whole ${n(budget)} context budget.`
        : `Too long for what was left: ${n(reason.left)} of the budget remained when its turn came, and it has ${n(reason.cost)}.${reason.shorterTaken ? ' A shorter fragment ranked below it took the space.' : ''}`;
    case 'count':
      return `Left out by count: only the top ${reason.maxSelected} are taken.`;
    case 'duplicate':
      return `A near-duplicate of a selected fragment (${describe(reason.of)}): its text is already in the context.`;
    case 'stopped':
      return `Selection stopped at the first fragment that did not fit, which ranks above it.`;
    case 'excluded':
      return 'Kept out of the ranking (it holds the cursor or repeats the question).';
  }
}
