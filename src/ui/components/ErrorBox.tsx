/**
 * @file An engine's or a pipeline's error as the answer views show it: the message, the detail
 * when it adds something, and what the view says next (children). Text only: an error's words
 * can come from a server.
 */
import type { ReactNode } from 'react';

export interface ShownError {
  code: string;
  message: string;
  detail?: string;
}

export function ErrorBox({
  error,
  testId,
  children,
}: {
  error: ShownError;
  testId: string;
  children?: ReactNode;
}) {
  return (
    <div className="answer__error" role="alert" data-testid={testId} data-code={error.code}>
      <p>{error.message}</p>
      {error.detail && !error.message.includes(error.detail) && (
        <p className="stats">{error.detail}</p>
      )}
      {children}
    </div>
  );
}
