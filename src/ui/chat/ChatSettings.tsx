/**
 * @file A conversation's memory settings (stored with it) and the library documents it draws
 * on. Every number takes its default from core/chat/options.ts until changed.
 */
import { useId, useState } from 'react';
import { defaultChatMemoryOptions } from '../../core/chat';
import type { ChatSettingsRecord, DocumentRecord } from '../../store';

type NumberKey =
  | 'memoryAfterRounds'
  | 'memoryAfterTokens'
  | 'topTurns'
  | 'recentTurns'
  | 'wRel'
  | 'alpha'
  | 'chatShare';

const FIELDS: ReadonlyArray<{
  key: NumberKey;
  label: string;
  help: string;
  min: number;
  max?: number;
  step: number;
  whole?: boolean;
}> = [
  {
    key: 'memoryAfterRounds',
    label: 'Memory after (rounds)',
    help: 'More past rounds than this switch memory on.',
    min: 0,
    step: 1,
    whole: true,
  },
  {
    key: 'memoryAfterTokens',
    label: 'Memory after (tokens)',
    help: 'A longer history switches memory on.',
    min: 0,
    step: 100,
  },
  {
    key: 'topTurns',
    label: 'Rounds recalled (top)',
    help: 'At most this many older rounds, by final score.',
    min: 0,
    step: 1,
    whole: true,
  },
  {
    key: 'recentTurns',
    label: 'Recent rounds kept verbatim',
    help: 'Always in the prompt, never recalled.',
    min: 0,
    step: 1,
    whole: true,
  },
  {
    key: 'wRel',
    label: 'Context decay w_rel',
    help: 'Eq. 7: a round lends relevance to one k rounds away with weight w_rel^k.',
    min: 0,
    max: 1,
    step: 0.05,
  },
  {
    key: 'alpha',
    label: 'Environment weight α',
    help: 'Eq. 10: final = independent + α × environment.',
    min: 0,
    step: 0.05,
  },
];

const SHARE_FIELD = {
  key: 'chatShare' as const,
  label: 'Chat share of the budget',
  help: "'Share' rule: the chat's part (0 to 1); the library gets the rest.",
  min: 0,
  max: 1,
  step: 0.05,
};

function NumberField({
  id,
  field,
  value,
  onChange,
}: {
  id: string;
  field: (typeof FIELDS)[number];
  value: number;
  onChange: (value: number) => void;
}) {
  // What is typed stays as typed until it is a valid value (an empty box, "0." …).
  const [text, setText] = useState<string | null>(null);
  const valid = (v: number) =>
    Number.isFinite(v) &&
    v >= field.min &&
    (field.max === undefined || v <= field.max) &&
    (!field.whole || Number.isInteger(v));
  return (
    <div className="chat-settings__field">
      <label htmlFor={id}>{field.label}</label>
      <input
        id={id}
        type="number"
        min={field.min}
        max={field.max}
        step={field.step}
        value={text ?? String(value)}
        aria-describedby={`${id}-help`}
        onChange={(e) => {
          const v = e.target.value === '' ? NaN : Number(e.target.value);
          setText(e.target.value);
          if (valid(v)) onChange(v);
        }}
        onBlur={() => setText(null)}
      />
      <span id={`${id}-help`} className="help">
        {field.help}
      </span>
    </div>
  );
}

export function ChatSettings({
  settings,
  onChange,
  documents,
  docIds,
  onDocIds,
  disabled,
}: {
  settings: ChatSettingsRecord;
  onChange: (next: ChatSettingsRecord) => void;
  /** The library's documents (indexed ones can be linked). */
  documents: readonly DocumentRecord[];
  docIds: readonly string[];
  onDocIds: (next: string[]) => void;
  disabled: boolean;
}) {
  const id = useId();
  const d = defaultChatMemoryOptions;
  const value = (key: NumberKey) => settings[key] ?? d[key];
  const set = <K extends keyof ChatSettingsRecord>(key: K, v: ChatSettingsRecord[K]) =>
    onChange({ ...settings, [key]: v });
  const linkable = documents.filter((doc) => doc.status === 'indexed');
  const linked = new Set(docIds);
  const changed = Object.keys(settings).length > 0;

  return (
    <details className="chat-settings" data-testid="chat-settings">
      <summary>Memory settings{changed ? ' (changed)' : ''}</summary>
      <fieldset className="chat-settings__grid" disabled={disabled}>
        <legend className="visually-hidden">Chat memory</legend>
        <div className="chat-settings__field">
          <label htmlFor={`${id}-memory`}>Memory</label>
          <select
            id={`${id}-memory`}
            value={settings.memory ?? d.memory}
            onChange={(e) => set('memory', e.target.value as ChatSettingsRecord['memory'])}
          >
            <option value="auto">By the thresholds</option>
            <option value="on">Always on</option>
            <option value="off">Off (full history)</option>
          </select>
        </div>
        {FIELDS.map((field) => (
          <NumberField
            key={field.key}
            id={`${id}-${field.key}`}
            field={field}
            value={value(field.key)}
            onChange={(v) => set(field.key, v)}
          />
        ))}
        <div className="chat-settings__field">
          <label htmlFor={`${id}-scoring`}>Round scoring (Eq. 4)</label>
          <select
            id={`${id}-scoring`}
            value={
              settings.scoring === undefined || settings.scoring === 'auto'
                ? 'dense'
                : settings.scoring
            }
            onChange={(e) => set('scoring', e.target.value as ChatSettingsRecord['scoring'])}
          >
            <option value="dense">Dense: GloVe word vectors (offline)</option>
            <option value="bm25">BM25</option>
            <option value="hybrid">Hybrid</option>
          </select>
        </div>
        {docIds.length > 0 && (
          <>
            <div className="chat-settings__field">
              <label htmlFor={`${id}-split`}>Budget split with the library</label>
              <select
                id={`${id}-split`}
                value={settings.budgetSplit ?? d.budgetSplit}
                onChange={(e) =>
                  set('budgetSplit', e.target.value as ChatSettingsRecord['budgetSplit'])
                }
              >
                <option value="merge">Merge: one ranking by final score</option>
                <option value="share">Share: a fixed part for the chat</option>
              </select>
            </div>
            {(settings.budgetSplit ?? d.budgetSplit) === 'share' && (
              <NumberField
                id={`${id}-share`}
                field={SHARE_FIELD}
                value={value('chatShare')}
                onChange={(v) => set('chatShare', v)}
              />
            )}
          </>
        )}
        <div className="chat-settings__actions">
          <button type="button" onClick={() => onChange({})} disabled={!changed}>
            Reset to the defaults
          </button>
        </div>
      </fieldset>
      <fieldset className="chat-settings__docs" disabled={disabled}>
        <legend>Library documents this chat draws on</legend>
        {linkable.length === 0 ? (
          <p className="help">Add a document to the library to let the chat draw on it.</p>
        ) : (
          linkable.map((doc) => (
            <label key={doc.id} className="inline">
              <input
                type="checkbox"
                checked={linked.has(doc.id)}
                onChange={(e) =>
                  onDocIds(
                    e.target.checked ? [...docIds, doc.id] : docIds.filter((x) => x !== doc.id),
                  )
                }
              />{' '}
              {doc.name}
            </label>
          ))
        )}
        <p className="help">
          With documents, each message searches them too (with the Ask view&apos;s retrieval
          settings) and the recall budget is shared between the two memories.
        </p>
      </fieldset>
    </details>
  );
}
