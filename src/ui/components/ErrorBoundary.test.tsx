// @vitest-environment happy-dom
import { act } from 'react';
import { createRoot } from 'react-dom/client';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  ErrorBoundary,
  escapedErrorMessage,
  jobFailureMessage,
  useGlobalFailures,
} from './ErrorBoundary';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

function Exploding({ when }: { when: boolean }): React.ReactElement {
  if (when) throw new RangeError('Maximum call stack size exceeded');
  return <p data-testid="fine">fine</p>;
}

function Listener({ notify }: { notify: (text: string) => void }) {
  useGlobalFailures(notify);
  return null;
}

const roots: { unmount(): void }[] = [];
function mount(node: React.ReactElement): HTMLElement {
  const host = document.createElement('div');
  document.body.append(host);
  const root = createRoot(host);
  roots.push(root);
  act(() => root.render(node));
  return host;
}

afterEach(() => {
  act(() => roots.splice(0).forEach((r) => r.unmount()));
  vi.restoreAllMocks();
});

describe('ErrorBoundary', () => {
  it('shows its children while nothing fails', () => {
    const host = mount(
      <ErrorBoundary>
        <Exploding when={false} />
      </ErrorBoundary>,
    );
    expect(host.querySelector('[data-testid="fine"]')).not.toBeNull();
    expect(host.querySelector('[role="alert"]')).toBeNull();
  });

  it('turns an error thrown while rendering into a visible message, not a blank page', () => {
    vi.spyOn(console, 'error').mockImplementation(() => {});
    const host = mount(
      <ErrorBoundary>
        <Exploding when />
      </ErrorBoundary>,
    );
    const alert = host.querySelector('[role="alert"]');
    expect(alert?.textContent).toMatch(
      /The page failed while showing your library: Maximum call stack size exceeded\. Your stored library is intact/,
    );
    expect(alert?.querySelector('button')?.textContent).toBe('Reload');
  });
});

describe('useGlobalFailures', () => {
  it('reports an unhandled rejection and an uncaught error, but not a cancellation', () => {
    const seen: string[] = [];
    mount(<Listener notify={(t) => seen.push(t)} />);
    const rejection = (reason: unknown) => {
      const event = new Event('unhandledrejection') as Event & { reason: unknown };
      event.reason = reason;
      window.dispatchEvent(event);
    };
    rejection(new Error('The transaction was aborted'));
    const abort = new Error('The operation was cancelled.');
    abort.name = 'AbortError';
    rejection(abort);
    window.dispatchEvent(new ErrorEvent('error', { error: new TypeError('x is undefined') }));
    expect(seen).toEqual([
      escapedErrorMessage(new Error('The transaction was aborted')),
      escapedErrorMessage(new TypeError('x is undefined')),
    ]);
    expect(seen[0]).toBe(
      'Something failed unexpectedly: The transaction was aborted. Nothing was stored by the step that failed.',
    );
  });
});

describe('jobFailureMessage', () => {
  it('does not call an AbortError the browser raised a cancellation', () => {
    const abort = new DOMException('The transaction was aborted.', 'AbortError');
    expect(jobFailureMessage('small.zip', abort)).toBe(
      '“small.zip” was not added: the browser stopped the work (The transaction was aborted.). Nothing was stored; the library is as it was.',
    );
  });

  it('passes other messages on, and names an error without one', () => {
    expect(jobFailureMessage('a.txt', new Error('“a.txt” is empty.'))).toBe('“a.txt” is empty.');
    const bare = new Error('');
    bare.name = 'UnknownError';
    expect(jobFailureMessage('a.txt', bare)).toBe(
      '“a.txt” failed (UnknownError). Nothing was stored.',
    );
  });
});
