/**
 * @file A model's failure as the answer panel and the chat show it: the message, the detail when
 * it adds something, and what the caller puts below (what to do next).
 */
import type { ReactNode } from 'react';
import type { LlmError } from '../../llm/types';

export function LlmErrorNote({
  error,
  testId,
  children,
}: {
  error: LlmError;
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
