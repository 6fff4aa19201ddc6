// @vitest-environment happy-dom
import { act } from 'react';
import { createRoot } from 'react-dom/client';
import { describe, expect, it } from 'vitest';
import { NoticeStack, type Notice } from './NoticeStack';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

function mount(notices: Notice[]) {
  const div = document.createElement('div');
  const root = createRoot(div);
  const dismissed: number[][] = [];
  act(() =>
    root.render(<NoticeStack notices={notices} onDismiss={(ids) => dismissed.push(ids)} />),
  );
  return { div, dismissed };
}

const notices: Notice[] = [
  { id: 1, kind: 'error', text: 'a.txt could not be read.' },
  { id: 2, kind: 'info', text: 'Cancelled “b.txt”.' },
  { id: 3, kind: 'error', text: 'c.txt could not be read.' },
];

describe('NoticeStack', () => {
  it('offers "Dismiss all" for stacked notices, which dismisses every one', () => {
    const { div, dismissed } = mount(notices);
    const all = div.querySelector<HTMLButtonElement>('[data-testid="dismiss-all"]')!;
    expect(all.textContent).toBe('Dismiss all 3 notices');
    act(() => all.click());
    expect(dismissed).toEqual([[1, 2, 3]]);
  });

  it('dismisses one by its own button, and shows no "Dismiss all" for a single notice', () => {
    const { div, dismissed } = mount(notices);
    act(() => div.querySelectorAll<HTMLButtonElement>('[data-testid="notice"] button')[1].click());
    expect(dismissed).toEqual([[2]]);
    expect(mount(notices.slice(0, 1)).div.querySelector('[data-testid="dismiss-all"]')).toBeNull();
  });
});
