/**
 * @file Keeping the tabs of one library in step (one tab said a book was "already in
 * the library" while not listing it; another kept a book deleted elsewhere and failed its next
 * question).
 *
 * Why BroadcastChannel: it is the platform's message bus between same-origin tabs and workers,
 * with no storage of its own (storage events would need a localStorage write per change). It
 * never delivers a message to the channel object that posted it, so a tab does not react to its
 * own writes. Messages only say which part changed ("library", "chats", "settings"); each tab
 * reads the new state from IndexedDB, the one source of truth, so a lost or late message costs a
 * stale view until the next one, never wrong data.
 */
import { useEffect, useRef } from 'react';
import type { Library } from '../../store';

export type SyncTopic = 'library' | 'chats' | 'settings';

export interface SyncMessage {
  topic: SyncTopic;
}

const CHANNEL = 'fragrel-lens-library';

/** The store's writes and the part of the library each one changes. */
const WRITES: Readonly<Partial<Record<keyof Library, SyncTopic>>> = {
  saveIndexedDocument: 'library',
  updateDocument: 'library',
  deleteDocument: 'library',
  importRecords: 'library',
  putVectors: 'library',
  putRelation: 'library',
  setSetting: 'settings',
  createChat: 'chats',
  saveChatRound: 'chats',
  updateChat: 'chats',
  deleteChat: 'chats',
};

export interface TabSync {
  post(topic: SyncTopic): void;
  /** Calls `listener` for each message from another tab; returns the unsubscribe. */
  subscribe(listener: (message: SyncMessage) => void): () => void;
  close(): void;
}

/** A sync over a BroadcastChannel, or one that does nothing where there is none. */
export function createTabSync(
  open: () => BroadcastChannel | null = () =>
    typeof BroadcastChannel === 'undefined' ? null : new BroadcastChannel(CHANNEL),
): TabSync {
  const channel = open();
  const listeners = new Set<(message: SyncMessage) => void>();
  if (channel) {
    channel.onmessage = (event: MessageEvent<unknown>) => {
      const data = event.data as Partial<SyncMessage> | null;
      // Only our own message shape; anything else on the channel is ignored.
      if (
        !data ||
        (data.topic !== 'library' && data.topic !== 'chats' && data.topic !== 'settings')
      )
        return;
      const message: SyncMessage = { topic: data.topic };
      for (const listener of listeners) listener(message);
    };
  }
  return {
    post(topic) {
      channel?.postMessage({ topic } satisfies SyncMessage);
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    close() {
      listeners.clear();
      channel?.close();
    },
  };
}

let shared: TabSync | undefined;

/** This page's sync (one channel per page). */
export function tabSync(): TabSync {
  shared ??= createTabSync();
  return shared;
}

/**
 * The library, telling the other tabs after each write that succeeded which part changed. Reads
 * pass straight through; methods run on the library itself, not on the proxy.
 */
export function announcingWrites(library: Library, sync: TabSync = tabSync()): Library {
  return new Proxy(library, {
    get(target, prop, receiver) {
      const value: unknown = Reflect.get(target, prop, receiver);
      if (typeof value !== 'function') return value;
      const topic = WRITES[prop as keyof Library];
      const method = value as (...args: unknown[]) => unknown;
      if (!topic) return method.bind(target);
      return (...args: unknown[]) => {
        const result = method.apply(target, args);
        void Promise.resolve(result).then(
          () => sync.post(topic),
          () => undefined,
        );
        return result;
      };
    },
  });
}

/** Run `handler` whenever another tab changed `topic`. */
export function useTabSync(topic: SyncTopic, handler: () => void, sync: TabSync = tabSync()) {
  const latest = useRef(handler);
  useEffect(() => {
    latest.current = handler;
  });
  useEffect(
    () =>
      sync.subscribe((message) => {
        if (message.topic === topic) latest.current();
      }),
    [topic, sync],
  );
}

/** What changed between two listings of the library: documents gone, and ids that are new. */
export function libraryChanges<T extends { id: string }>(
  before: readonly T[],
  after: readonly T[],
): { removed: T[]; added: string[] } {
  const now = new Set(after.map((d) => d.id));
  const was = new Set(before.map((d) => d.id));
  return {
    removed: before.filter((d) => !now.has(d.id)),
    added: after.filter((d) => !was.has(d.id)).map((d) => d.id),
  };
}
