/**
 * @file Conversations as stored: building records, adding a round, and reading a
 * record back defensively. Pure: the Library's chat methods (library.ts) do the transactions.
 *
 * A stored record is read through `readChatRecord`, so a record from an older build, a
 * hand-edited one or one with a field of the wrong type reaches the app in shape: bad rounds
 * are skipped, unknown settings dropped, and missing fields take their defaults.
 */
import type { ChatRecord, ChatRoundRecord, ChatSettingsRecord } from './schema';

/** The title of a conversation nobody has named yet. */
export const UNTITLED_CHAT = 'New chat';

/** Longest title kept; longer ones are cut (titles are labels, not text). */
export const CHAT_TITLE_MAX = 120;

export interface NewChat {
  title?: string;
  docIds?: readonly string[];
  settings?: ChatSettingsRecord;
  /** Default: a random UUID. */
  id?: string;
  /** Default: now. */
  now?: number;
}

/** What a rename, a settings change or (un)linking documents changes. */
export type ChatPatch = Partial<Pick<ChatRecord, 'title' | 'settings' | 'docIds'>>;

/** A title as stored: one line, trimmed, at most `CHAT_TITLE_MAX` characters, never empty. */
export function chatTitle(title: string | undefined): string {
  const line = (title ?? '').replace(/\s+/g, ' ').trim();
  if (!line) return UNTITLED_CHAT;
  return line.length > CHAT_TITLE_MAX ? `${line.slice(0, CHAT_TITLE_MAX - 1).trimEnd()}…` : line;
}

/** A title from a first message: its first words. */
export function titleFromMessage(message: string, words = 8): string {
  const all = message.replace(/\s+/g, ' ').trim().split(' ');
  const head = all.slice(0, words).join(' ');
  return chatTitle(all.length > words ? `${head}…` : head);
}

export function newChatRecord(input: NewChat = {}): ChatRecord {
  const now = input.now ?? Date.now();
  return {
    id: input.id ?? crypto.randomUUID(),
    title: chatTitle(input.title),
    createdAt: now,
    updatedAt: now,
    rounds: [],
    settings: readChatSettings(input.settings ?? {}),
    docIds: uniqueStrings(input.docIds ?? []),
  };
}

/**
 * The record with `round` put at `index` (default: appended; an existing index is replaced,
 * for a regenerated reply), `updatedAt` moved on. The record is not changed.
 */
export function withRound(
  record: ChatRecord,
  round: ChatRoundRecord,
  index: number = record.rounds.length,
): ChatRecord {
  if (!(Number.isInteger(index) && index >= 0 && index <= record.rounds.length)) {
    throw new Error(
      `FragRel store: round ${index + 1} cannot be written to a conversation of ${record.rounds.length} rounds.`,
    );
  }
  const checked = readRound(round);
  if (!checked) throw new Error('FragRel store: a round needs a message, a reply and a time.');
  const rounds = record.rounds.slice();
  rounds[index] = checked;
  return { ...record, rounds, updatedAt: Math.max(record.updatedAt, checked.at) };
}

/** The record with `patch` applied (title normalised, settings checked), `updatedAt` = `now`. */
export function patchChat(record: ChatRecord, patch: ChatPatch, now = Date.now()): ChatRecord {
  const next = { ...record, updatedAt: Math.max(record.updatedAt, now) };
  if (patch.title !== undefined) next.title = chatTitle(patch.title);
  if (patch.settings !== undefined) next.settings = readChatSettings(patch.settings);
  if (patch.docIds !== undefined) next.docIds = uniqueStrings(patch.docIds);
  return next;
}

// Reading ---------------------------------------------------------------------------------------

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function finite(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value);
}

function uniqueStrings(values: readonly unknown[]): string[] {
  return [...new Set(values.filter((v): v is string => typeof v === 'string' && v !== ''))];
}

function readRound(value: unknown): ChatRoundRecord | null {
  if (!isObject(value) || typeof value.user !== 'string' || !finite(value.at)) return null;
  const round: ChatRoundRecord = {
    user: value.user,
    assistant: typeof value.assistant === 'string' ? value.assistant : '',
    at: value.at,
  };
  if (value.stopped === true) round.stopped = true;
  return round;
}

const COUNTS = ['memoryAfterRounds', 'topTurns', 'recentTurns'] as const;
const FRACTIONS = ['alpha', 'chatShare'] as const;
const CHOICES = {
  memory: ['auto', 'on', 'off'],
  scoring: ['auto', 'dense', 'bm25', 'hybrid'],
  budgetSplit: ['merge', 'share'],
} as const;

/**
 * Settings as stored: only known keys with values of the right kind and range (counts whole and
 * at least 0, w_rel and chatShare in [0, 1], alpha and the token threshold at least 0). Others
 * are dropped, so they take their defaults.
 */
export function readChatSettings(value: unknown): ChatSettingsRecord {
  if (!isObject(value)) return {};
  const out: ChatSettingsRecord = {};
  for (const key of COUNTS) {
    const v = value[key];
    if (finite(v) && Number.isInteger(v) && v >= 0) out[key] = v;
  }
  for (const key of FRACTIONS) {
    const v = value[key];
    if (finite(v) && v >= 0 && (key === 'alpha' || v <= 1)) out[key] = v;
  }
  if (finite(value.wRel) && value.wRel >= 0 && value.wRel <= 1) out.wRel = value.wRel;
  if (finite(value.memoryAfterTokens) && value.memoryAfterTokens >= 0) {
    out.memoryAfterTokens = value.memoryAfterTokens;
  }
  for (const [key, allowed] of Object.entries(CHOICES) as Array<
    [keyof typeof CHOICES, readonly string[]]
  >) {
    const v = value[key];
    if (typeof v === 'string' && allowed.includes(v)) (out as Record<string, string>)[key] = v;
  }
  return out;
}

/** A stored chat in shape, or null when it is not one at all (no id). */
export function readChatRecord(value: unknown): ChatRecord | null {
  if (!isObject(value) || typeof value.id !== 'string' || !value.id) return null;
  const rounds = Array.isArray(value.rounds)
    ? value.rounds.map(readRound).filter((r): r is ChatRoundRecord => r !== null)
    : [];
  const createdAt = finite(value.createdAt) ? value.createdAt : (rounds[0]?.at ?? 0);
  const updatedAt = finite(value.updatedAt)
    ? value.updatedAt
    : Math.max(createdAt, rounds[rounds.length - 1]?.at ?? 0);
  return {
    id: value.id,
    title: chatTitle(typeof value.title === 'string' ? value.title : undefined),
    createdAt,
    updatedAt,
    rounds,
    settings: readChatSettings(value.settings),
    docIds: Array.isArray(value.docIds) ? uniqueStrings(value.docIds) : [],
  };
}

/** Rough stored size of a record, for quota messages. */
export function chatBytes(record: ChatRecord): number {
  let chars = record.title.length;
  for (const r of record.rounds) chars += r.user.length + r.assistant.length + 16;
  return chars * 2 + 256;
}
