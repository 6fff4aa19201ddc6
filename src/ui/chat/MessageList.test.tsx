// @vitest-environment happy-dom
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { MessageList, type PendingRound } from './MessageList';

function statusOf(pending: PendingRound): string {
  const div = document.createElement('div');
  div.innerHTML = renderToStaticMarkup(
    <MessageList rounds={[]} pending={pending} memoryRound={null} onMemory={() => {}} />,
  );
  return div.querySelector('[data-testid="chat-pending-status"]')?.textContent ?? '';
}

describe('the pending reply', () => {
  it('says a reply that arrived but could not be stored is complete and unsaved', () => {
    const status = statusOf({
      message: 'Who kept a cat?',
      text: 'The keeper.',
      status: 'error',
      unsaved: true,
      error: { code: 'engine', message: 'The reply arrived but could not be saved: quota.' },
    });
    expect(status).not.toContain('could not be completed');
    expect(status).toBe('The reply is complete, but it could not be saved.');
  });

  it('says a reply that failed could not be completed', () => {
    const status = statusOf({
      message: 'Who kept a cat?',
      text: '',
      status: 'error',
      error: { code: 'network', message: 'The server did not answer.' },
    });
    expect(status).toBe('The reply could not be completed.');
  });
});
