/**
 * @file The chat view: conversations kept in the library, replies streamed from the
 * workspace's engine (the one the answer panel uses), and chat memory: for each new message the
 * earlier rounds are scored against it (FragRel over round order, core/chat), the short history
 * or the recalled rounds plus the latest ones go into the prompt, and the memory panel shows
 * which rounds, why, and how the budget was split (with the linked library's documents, when
 * the chat draws on some).
 *
 * Nothing is rendered until the view is first opened; then it stays mounted (hidden while the
 * other view shows), so a reply being written is not lost by looking at the library.
 */
import { countedExactly } from '../../llm/fit';
import { useEffect, useMemo, useRef, useState } from 'react';
import { chatMemoryPrompt } from '../../core/prompt';
import { fitAndGenerate } from '../answer/generate';
import { hostOf } from '../../llm/errors';
import { ENGINE_LABELS, isApiEngine } from '../../llm/settings';
import type { LlmError } from '../../llm/types';
import {
  titleFromMessage,
  type ChatRecord,
  type ChatRoundRecord,
  type DocumentRecord,
  type Library,
} from '../../store';
import type { Caller } from '../../workers/client';
import type { RetrievalApi } from '../../workers/retrieval.worker';
import type { RetrievalSettings } from '../../workers/retrieval-types';
import { SharedEngineSettings, useEngine } from '../answer/useEngine';
import type { IndexSettings } from '../library-service';
import { ChatSettings } from './ChatSettings';
import { Composer } from './Composer';
import { ConversationList } from './ConversationList';
import { MemoryPanel, type MemoryEntry } from './MemoryPanel';
import { MessageList, type PendingRound } from './MessageList';
import { prepareMemory, type MemoryRequest } from './planner';
import { memoryKey, useMemoryPlanner, withEntry } from './useMemoryPlanner';
import { useChats } from './useChats';
import { downloadRound } from './export-round';
import './chat.css';

export interface ChatViewProps {
  /** The chat is the view shown. */
  active: boolean;
  library: Library;
  /** The retrieval worker: scores the linked documents for each message. */
  retrieval: Caller<RetrievalApi>;
  /** The library's documents. */
  documents: readonly DocumentRecord[];
  /** Documents ticked in the library (offered for a new chat). */
  ticked: ReadonlySet<string>;
  /** The Ask view's index and retrieval settings, used to score linked documents. */
  indexSettings: IndexSettings;
  retrievalSettings: RetrievalSettings;
}

export function ChatView(props: ChatViewProps) {
  const [opened, setOpened] = useState(props.active);
  if (props.active && !opened) setOpened(true);
  return opened ? <ChatWorkspace {...props} /> : null;
}

interface Run extends PendingRound {
  id: number;
  chatId: string;
  /** 0-based round the message will be. */
  round: number;
  /** Where its memory entry is kept. */
  entryKey: string | null;
}

const STOPPED: LlmError = { code: 'aborted', message: 'Stopped.' };

function ChatWorkspace({
  active,
  library,
  retrieval,
  documents,
  ticked,
  indexSettings,
  retrievalSettings,
}: ChatViewProps) {
  const engine = useEngine();
  const chats = useChats(library);
  const [selectedId, setSelectedId] = useState<string | null>(null);
  const [drafts, setDrafts] = useState<Record<string, string>>({});
  const [run, setRun] = useState<Run | null>(null);
  const [pinned, setPinned] = useState<Record<string, number | null>>({});
  const [entries, setEntries] = useState<Map<string, MemoryEntry>>(() => new Map());
  const [problem, setProblem] = useState<string | null>(null);
  const abort = useRef<AbortController | null>(null);
  const runId = useRef(0);

  useEffect(() => () => abort.current?.abort(), []);

  const list = chats.list;
  const chat: ChatRecord | null = list?.find((c) => c.id === selectedId) ?? list?.[0] ?? null;
  const chatId = chat?.id ?? null;
  const draftKey = chatId ?? '';
  const draft = drafts[draftKey] ?? '';
  const setDraft = (key: string, text: string) => setDrafts((d) => ({ ...d, [key]: text }));

  const indexed = useMemo(
    () => new Set(documents.filter((d) => d.status === 'indexed').map((d) => d.id)),
    [documents],
  );
  const linkedOf = (c: ChatRecord | null): string[] =>
    c ? c.docIds.filter((id) => indexed.has(id)) : [];

  const { deps, scoringKey } = useMemoryPlanner(
    library,
    retrieval,
    indexSettings,
    retrievalSettings,
  );
  const libraryKey = (docIds: readonly string[]) => (docIds.length ? scoringKey : '');

  const busy = run !== null && run.status !== 'error';
  const runHere = run && run.chatId === chatId ? run : null;

  // The memory panel's message: the one being sent, else the pinned one, else the latest.
  const rounds = chat?.rounds;
  const pin = chatId ? (pinned[chatId] ?? null) : null;
  const linkedKey = linkedOf(chat).join('\n');
  const target = useMemo(() => {
    if (!chatId || !rounds || !chat) return null;
    const round = pin !== null && pin < rounds.length ? pin : rounds.length - 1;
    if (round < 0) return null;
    const request: MemoryRequest = {
      rounds: rounds.slice(0, round),
      message: rounds[round].user,
      settings: chat.settings,
      docIds: linkedKey ? linkedKey.split('\n') : [],
      contextLimit: engine.contextLimit,
      answerTokens: engine.settings.answerTokens,
      style: 'chat',
    };
    const key = memoryKey(chatId, round, request, linkedKey ? scoringKey : '');
    return { round, request, key };
  }, [
    chatId,
    rounds,
    chat,
    pin,
    linkedKey,
    scoringKey,
    engine.contextLimit,
    engine.settings.answerTokens,
  ]);
  const targetKnown = target ? entries.has(target.key) : true;

  useEffect(() => {
    if (!target || targetKnown) return;
    const controller = new AbortController();
    const { key, round, request } = target;
    const base = { round, message: request.message, prompt: null, exact: false };
    // Settings typed digit by digit settle before the rounds are scored again.
    const timer = setTimeout(() => {
      prepareMemory(deps, request, controller.signal).then(
        (view) =>
          setEntries((m) => withEntry(m, key, { ...base, status: 'ready', view, error: null })),
        (e: Error) => {
          if (controller.signal.aborted) return;
          setEntries((m) =>
            withEntry(m, key, { ...base, status: 'error', view: null, error: e.message }),
          );
        },
      );
    }, 150);
    return () => {
      clearTimeout(timer);
      controller.abort();
    };
  }, [target, targetKnown, deps]);

  const entry: MemoryEntry | null = runHere?.entryKey
    ? (entries.get(runHere.entryKey) ?? null)
    : runHere
      ? {
          round: runHere.round,
          message: runHere.message,
          status: 'loading',
          view: null,
          prompt: null,
          exact: false,
          error: null,
        }
      : target
        ? (entries.get(target.key) ?? {
            round: target.round,
            message: target.request.message,
            status: 'loading',
            view: null,
            prompt: null,
            exact: false,
            error: null,
          })
        : null;

  const send = async () => {
    if (busy) return;
    const message = draft.trim();
    if (!message || engine.problem) return;
    let current = chat;
    if (!current) {
      try {
        current = await chats.create();
      } catch (e) {
        setProblem(`A new chat could not be started: ${(e as Error).message}`);
        return;
      }
      setSelectedId(current.id);
      setDraft('', '');
    }
    const id = current.id;
    const round = current.rounds.length;
    const before = current.rounds;
    const controller = new AbortController();
    abort.current?.abort();
    abort.current = controller;
    const signal = controller.signal;
    const runNo = ++runId.current;
    const update = (patch: Partial<Run>) =>
      setRun((r) => (r && r.id === runNo ? { ...r, ...patch } : r));
    setDraft(id, '');
    setProblem(null);
    setPinned((p) => ({ ...p, [id]: null }));
    setRun({
      id: runNo,
      chatId: id,
      round,
      message,
      status: 'preparing',
      text: '',
      error: null,
      entryKey: null,
    });
    /** The reply failed: say why (unless stopped), and give the message back. */
    const fail = (error: LlmError, text = '') => {
      if (error.code === 'aborted') setRun((r) => (r && r.id === runNo ? null : r));
      else update({ status: 'error', error, text });
      setDrafts((d) => ({ ...d, [id]: d[id] ? d[id] : message }));
      if (abort.current === controller) abort.current = null;
    };

    const acquired = await engine.acquire(signal, () => update({ status: 'loading' }));
    if (!('generate' in acquired)) return fail(acquired);
    const llm = acquired;
    if (signal.aborted) return fail(STOPPED);
    update({ status: 'preparing' });

    const request: MemoryRequest = {
      rounds: before,
      message,
      settings: current.settings,
      docIds: linkedOf(current),
      contextLimit: llm.contextLimit,
      answerTokens: engine.settings.answerTokens,
      style: llm.promptStyle,
    };
    let view;
    try {
      view = await prepareMemory(deps, request, signal);
    } catch (e) {
      if (signal.aborted) return fail(STOPPED);
      return fail({
        code: 'engine',
        message: 'The earlier rounds could not be recalled for this message.',
        detail: (e as Error).message,
      });
    }
    const key = memoryKey(id, round, request, libraryKey(request.docIds));
    const base = { round, message, status: 'ready' as const, view, error: null };
    setEntries((m) => withEntry(m, key, { ...base, prompt: null, exact: false }));
    update({ entryKey: key });

    const answerTokens = view.budget.answer;
    const generated = await fitAndGenerate(
      llm,
      (budget) => chatMemoryPrompt(view.parts.input, budget),
      {
        answerTokens,
        temperature: engine.settings.temperature,
        signal,
        onPrompt: (prompt) => {
          setEntries((m) =>
            withEntry(m, key, { ...base, prompt, exact: countedExactly(llm, prompt) }),
          );
          update({ status: 'streaming' });
        },
        onText: (piece) =>
          setRun((r) => (r && r.id === runNo ? { ...r, text: r.text + piece } : r)),
      },
    );
    if (!generated.ok) return fail(generated.error);
    const { outcome } = generated;
    if (abort.current === controller) abort.current = null;

    const stoppedWithText = !outcome.ok && outcome.error.code === 'aborted' && outcome.text.trim();
    if (!outcome.ok && !stoppedWithText) return fail(outcome.error, outcome.text);
    const record: ChatRoundRecord = {
      user: message,
      assistant: outcome.text,
      at: Date.now(),
      ...(outcome.ok ? {} : { stopped: true }),
    };
    const options = { title: round === 0 ? titleFromMessage(message) : undefined };
    // A reply that cannot be stored (a full disk) stays on screen with Retry and Export.
    const save = async () => {
      try {
        await chats.saveRound(id, record, options);
        setRun((r) => (r && r.id === runNo ? null : r));
      } catch (e) {
        update({
          status: 'error',
          text: outcome.text,
          unsaved: true,
          error: {
            code: 'engine',
            message: `The reply arrived but could not be saved: ${(e as Error).message}`,
          },
        });
      }
    };
    unsaved.current = { runNo, save, record };
    await save();
  };

  /** The round whose reply could not be stored: saved again, or downloaded as text. */
  const unsaved = useRef<{
    runNo: number;
    save: () => Promise<void>;
    record: ChatRoundRecord;
  } | null>(null);
  const retrySave = () => void unsaved.current?.save();
  const exportUnsaved = () => {
    const round = unsaved.current?.record;
    if (round) downloadRound(chat?.title ?? 'chat', round);
  };

  const stop = () => abort.current?.abort();

  const newChat = async (withTicked: boolean) => {
    try {
      const created = await chats.create({
        docIds: withTicked ? [...ticked].filter((id) => indexed.has(id)) : [],
      });
      setSelectedId(created.id);
    } catch (e) {
      setProblem(`A new chat could not be started: ${(e as Error).message}`);
    }
  };

  const guarded = (work: Promise<unknown>) =>
    void work.catch((e: Error) => setProblem(`The chat could not be saved: ${e.message}`));

  const remove = (id: string) => {
    if (run?.chatId === id) {
      abort.current?.abort();
      setRun(null);
    }
    const next = list?.find((c) => c.id !== id)?.id ?? null;
    guarded(chats.remove(id).then(() => setSelectedId(next)));
  };

  const engineSummary = (() => {
    const s = engine.settings;
    if (isApiEngine(s.kind)) {
      return `${ENGINE_LABELS[s.kind]} · ${s[s.kind].model || 'no model'} at ${hostOf(s[s.kind].baseUrl) || '?'}`;
    }
    return ENGINE_LABELS[s.kind];
  })();

  const linked = linkedOf(chat);
  const linkedNames = documents.filter((d) => linked.includes(d.id)).map((d) => d.name);

  return (
    <section className="chat" hidden={!active} aria-label="Chat" data-testid="chat-view">
      <ConversationList
        chats={list ?? []}
        selectedId={chatId}
        busyId={busy ? (run?.chatId ?? null) : null}
        tickedCount={[...ticked].filter((id) => indexed.has(id)).length}
        onSelect={setSelectedId}
        onNew={(withTicked) => void newChat(withTicked)}
        onRename={(id, title) => guarded(chats.update(id, { title }))}
        onDelete={remove}
      />
      <div className="chat__main">
        {(problem || chats.error) && (
          <p className="notice" role="alert" data-testid="chat-problem">
            {problem ?? `The conversations could not be read: ${chats.error}`}
          </p>
        )}
        <div className="chat__thread card">
          <header className="chat__header">
            <h2 className="card__title" data-testid="chat-title">
              {chat?.title ?? 'New chat'}
            </h2>
            <p className="stats" data-testid="chat-library">
              {linkedNames.length
                ? `Draws on the library: ${linkedNames.join(', ')}.`
                : 'Standalone: draws on this conversation only.'}
            </p>
          </header>
          {active && (
            <details className="chat__engine">
              <summary>
                Engine: <span data-testid="chat-engine">{engineSummary}</span>
              </summary>
              <SharedEngineSettings busy={busy} />
            </details>
          )}
          {chat && (
            <ChatSettings
              settings={chat.settings}
              onChange={(settings) => guarded(chats.update(chat.id, { settings }))}
              documents={documents}
              docIds={chat.docIds}
              onDocIds={(docIds) => guarded(chats.update(chat.id, { docIds }))}
              disabled={false}
            />
          )}
          {list === null ? (
            <p role="status">Opening your conversations…</p>
          ) : (
            <MessageList
              rounds={chat?.rounds ?? []}
              pending={runHere}
              memoryRound={entry?.round ?? null}
              onMemory={(r) => chatId && setPinned((p) => ({ ...p, [chatId]: r }))}
              onRetrySave={retrySave}
              onExport={exportUnsaved}
            />
          )}
          <Composer
            value={draft}
            onChange={(text) => setDraft(draftKey, text)}
            onSend={() => void send()}
            onStop={stop}
            busy={busy}
            blocker={engine.problem}
          />
        </div>
        <MemoryPanel
          key={chatId ?? ''}
          entry={entry}
          rounds={chat?.rounds ?? []}
          settings={chat?.settings ?? {}}
        />
      </div>
    </section>
  );
}
