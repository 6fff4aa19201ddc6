/**
 * @file The conversations of the library, as the chat view holds them: read once from the store
 * (every conversation, so reopening the page restores them all), and kept in step with each
 * write (the store returns the record it wrote).
 */
import { useCallback, useEffect, useState } from 'react';
import type { ChatPatch, ChatRecord, ChatRoundRecord, Library, NewChat } from '../../store';
import { useTabSync } from '../sync/tab-sync';

export interface Chats {
  /** Every conversation, most recently changed first; null while loading. */
  list: ChatRecord[] | null;
  /** Why they could not be read, or null. */
  error: string | null;
  create(input?: NewChat): Promise<ChatRecord>;
  update(id: string, patch: ChatPatch): Promise<ChatRecord | undefined>;
  saveRound(
    id: string,
    round: ChatRoundRecord,
    options?: { index?: number; title?: string },
  ): Promise<ChatRecord | undefined>;
  remove(id: string): Promise<void>;
}

function byUpdated(a: ChatRecord, b: ChatRecord): number {
  return b.updatedAt - a.updatedAt || (a.id < b.id ? -1 : 1);
}

export function useChats(library: Library): Chats {
  const [list, setList] = useState<ChatRecord[] | null>(null);
  const [error, setError] = useState<string | null>(null);

  // Another tab wrote a conversation: read them all again.
  const [generation, setGeneration] = useState(0);
  useTabSync('chats', () => setGeneration((g) => g + 1));

  useEffect(() => {
    let live = true;
    library.listChats().then(
      (chats) => {
        if (live) setList(chats);
      },
      (e: Error) => {
        if (live) {
          setError(e.message);
          setList([]);
        }
      },
    );
    return () => {
      live = false;
    };
  }, [library, generation]);

  /** Put a written record in place (or drop it when the store says it is gone). */
  const put = useCallback((id: string, record: ChatRecord | undefined) => {
    setList((all) => {
      const rest = (all ?? []).filter((c) => c.id !== id);
      return record ? [record, ...rest].sort(byUpdated) : rest;
    });
    return record;
  }, []);

  const create = useCallback(
    async (input?: NewChat) => {
      const record = await library.createChat(input);
      put(record.id, record);
      return record;
    },
    [library, put],
  );

  const update = useCallback(
    async (id: string, patch: ChatPatch) => put(id, await library.updateChat(id, patch)),
    [library, put],
  );

  const saveRound = useCallback(
    async (id: string, round: ChatRoundRecord, options?: { index?: number; title?: string }) =>
      put(id, await library.saveChatRound(id, round, options)),
    [library, put],
  );

  const remove = useCallback(
    async (id: string) => {
      await library.deleteChat(id);
      put(id, undefined);
    },
    [library, put],
  );

  return { list, error, create, update, saveRound, remove };
}
