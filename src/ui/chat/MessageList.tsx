/**
 * @file The rounds of a conversation, oldest first, and the one being written. Each message can
 * be opened in the memory panel ("What it remembered").
 */
import { useEffect, useRef } from 'react';
import type { ChatRoundRecord } from '../../store';
import type { LlmError } from '../../llm/types';
import { MarkdownAnswer } from '../markdown/MarkdownAnswer';
import { LlmErrorNote } from '../answer/LlmErrorNote';

export type PendingStatus = 'preparing' | 'loading' | 'streaming' | 'error';

export interface PendingRound {
  message: string;
  text: string;
  status: PendingStatus;
  error: LlmError | null;
  /** The reply arrived but could not be stored: it stays here until saved or exported. */
  unsaved?: boolean;
}

const PENDING_TEXT: Record<PendingStatus, string> = {
  preparing: 'Recalling and preparing the prompt…',
  loading: 'Loading the model…',
  streaming: 'Writing…',
  error: 'The reply could not be completed.',
};

/** The reply's state in words: a reply that arrived but could not be stored is not a failed reply. */
export function pendingStatusText(pending: Pick<PendingRound, 'status' | 'unsaved'>): string {
  return pending.unsaved
    ? 'The reply is complete, but it could not be saved.'
    : PENDING_TEXT[pending.status];
}

export function MessageList({
  rounds,
  pending,
  memoryRound,
  onMemory,
  onRetrySave,
  onExport,
}: {
  rounds: readonly ChatRoundRecord[];
  pending: PendingRound | null;
  /** The round the memory panel shows. */
  memoryRound: number | null;
  onMemory: (round: number) => void;
  /** For a reply that could not be stored: save it again, or download it. */
  onRetrySave?: () => void;
  onExport?: () => void;
}) {
  const end = useRef<HTMLLIElement>(null);
  const count = rounds.length;
  const pendingText = pending?.text ?? '';
  // Follow the conversation as it grows.
  useEffect(() => {
    end.current?.scrollIntoView?.({ block: 'nearest' });
  }, [count, pendingText, pending?.status]);

  if (count === 0 && !pending) {
    return (
      <p className="empty-state chat__empty">
        Say something. While the conversation is short, all of it goes to the model; once it passes
        the thresholds in the memory settings, the rounds most related to your new message are
        recalled, with the latest ones kept verbatim. The panel below shows which, and why.
      </p>
    );
  }
  return (
    <ol className="chat__messages" aria-label="Messages" data-testid="chat-messages">
      {rounds.map((round, i) => (
        <li
          key={i}
          className={`chat__round${memoryRound === i ? ' chat__round--memory' : ''}`}
          data-testid="chat-round"
          data-round={i + 1}
          ref={i === count - 1 && !pending ? end : undefined}
        >
          <div className="msg msg--user">
            <span className="msg__who">
              You · round {i + 1}{' '}
              <button
                type="button"
                className="link"
                aria-pressed={memoryRound === i}
                onClick={() => onMemory(i)}
              >
                What it remembered
              </button>
            </span>
            <p className="msg__text">{round.user}</p>
          </div>
          <div className="msg msg--assistant">
            <span className="msg__who">Assistant</span>
            <MarkdownAnswer
              text={round.assistant}
              sources={null}
              className="msg__text"
              testId="chat-reply"
            />
            {round.stopped && <p className="stats">Stopped before the end.</p>}
          </div>
        </li>
      ))}
      {pending && (
        <li
          className="chat__round chat__round--pending"
          data-testid="chat-pending"
          data-state={pending.status}
          ref={end}
        >
          <div className="msg msg--user">
            <span className="msg__who">You · round {count + 1}</span>
            <p className="msg__text">{pending.message}</p>
          </div>
          <div className="msg msg--assistant">
            <span className="msg__who">Assistant</span>
            <p className="stats" role="status" data-testid="chat-pending-status">
              {pendingStatusText(pending)}
            </p>
            {pending.text && (
              <div aria-live="polite">
                <MarkdownAnswer
                  text={pending.text}
                  sources={null}
                  className="msg__text"
                  testId="chat-streaming"
                />
              </div>
            )}
            {pending.error && (
              <LlmErrorNote error={pending.error} testId="chat-error">
                {pending.unsaved ? (
                  <p className="stats">
                    The reply is kept here until it is saved.{' '}
                    <button type="button" onClick={onRetrySave}>
                      Retry saving
                    </button>{' '}
                    <button type="button" onClick={onExport}>
                      Export
                    </button>
                  </p>
                ) : (
                  <p className="stats">
                    Your message is back in the box below: send it again when ready. Nothing of this
                    round was saved.
                  </p>
                )}
              </LlmErrorNote>
            )}
          </div>
        </li>
      )}
    </ol>
  );
}
