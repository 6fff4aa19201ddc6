/**
 * @file The conversations: pick one, start one (standalone, or on the ticked documents), rename
 * one in place, delete one (asked twice).
 */
import { useState } from 'react';
import type { ChatRecord } from '../../store';

export interface ConversationListProps {
  chats: readonly ChatRecord[];
  selectedId: string | null;
  /** A reply is being written in this conversation (it cannot be deleted meanwhile). */
  busyId: string | null;
  /** Documents ticked in the library, offered for a new chat. */
  tickedCount: number;
  onSelect: (id: string) => void;
  onNew: (withTicked: boolean) => void;
  onRename: (id: string, title: string) => void;
  onDelete: (id: string) => void;
}

export function ConversationList(props: ConversationListProps) {
  const { chats, selectedId, busyId, tickedCount, onSelect, onNew, onRename, onDelete } = props;
  const [renaming, setRenaming] = useState<{ id: string; title: string } | null>(null);
  const [deleting, setDeleting] = useState<string | null>(null);

  return (
    <nav className="chat__list card" aria-labelledby="chat-list-title">
      <h2 id="chat-list-title" className="card__title">
        Conversations
      </h2>
      <div className="chat__new">
        <button type="button" className="primary" onClick={() => onNew(false)}>
          New chat
        </button>
        {tickedCount > 0 && (
          <button type="button" onClick={() => onNew(true)}>
            New chat on the{' '}
            {tickedCount === 1 ? 'ticked document' : `${tickedCount} ticked documents`}
          </button>
        )}
      </div>
      {chats.length === 0 ? (
        <p className="empty-state">No conversations yet.</p>
      ) : (
        <ul className="chat__conversations">
          {chats.map((chat) => {
            const current = chat.id === selectedId;
            const rounds = `${chat.rounds.length} round${chat.rounds.length === 1 ? '' : 's'}`;
            const docs = chat.docIds.length
              ? ` · ${chat.docIds.length} document${chat.docIds.length === 1 ? '' : 's'}`
              : '';
            return (
              <li
                key={chat.id}
                className={`chat__conversation${current ? ' chat__conversation--current' : ''}`}
                data-testid="chat-conversation"
              >
                {renaming?.id === chat.id ? (
                  <form
                    className="chat__rename"
                    onSubmit={(e) => {
                      e.preventDefault();
                      onRename(chat.id, renaming.title);
                      setRenaming(null);
                    }}
                  >
                    <label htmlFor={`rename-${chat.id}`} className="visually-hidden">
                      New name
                    </label>
                    <input
                      id={`rename-${chat.id}`}
                      value={renaming.title}
                      autoFocus
                      onChange={(e) => setRenaming({ id: chat.id, title: e.target.value })}
                      onKeyDown={(e) => {
                        if (e.key === 'Escape') setRenaming(null);
                      }}
                    />
                    <button type="submit">Save</button>
                    <button type="button" onClick={() => setRenaming(null)}>
                      Cancel
                    </button>
                  </form>
                ) : (
                  <button
                    type="button"
                    className="chat__open"
                    aria-current={current ? 'true' : undefined}
                    onClick={() => onSelect(chat.id)}
                  >
                    <span className="chat__title">{chat.title}</span>
                    <span className="stats">
                      {rounds}
                      {docs}
                    </span>
                  </button>
                )}
                {current && renaming?.id !== chat.id && (
                  <div className="chat__manage">
                    {deleting === chat.id ? (
                      <>
                        <button
                          type="button"
                          onClick={() => {
                            setDeleting(null);
                            onDelete(chat.id);
                          }}
                        >
                          Delete for good
                        </button>
                        <button type="button" onClick={() => setDeleting(null)}>
                          Keep
                        </button>
                      </>
                    ) : (
                      <>
                        <button
                          type="button"
                          onClick={() => setRenaming({ id: chat.id, title: chat.title })}
                        >
                          Rename
                        </button>
                        <button
                          type="button"
                          disabled={busyId === chat.id}
                          onClick={() => setDeleting(chat.id)}
                        >
                          Delete
                        </button>
                      </>
                    )}
                  </div>
                )}
              </li>
            );
          })}
        </ul>
      )}
    </nav>
  );
}
