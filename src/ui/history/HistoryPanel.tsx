import { useCallback, useEffect, useMemo, useState } from 'react';
import type { Library, QuestionRecord } from '../../store';
import { SearchField } from '../components/SearchField';
import { download } from '../eval/download';
import { MarkdownAnswer } from '../markdown/MarkdownAnswer';
import { historyToJson, historyToMarkdown, searchHistory } from './export';

/**
 * The library's questions and answers (kept in IndexedDB's `questions` store): listed newest
 * first, searchable, deletable, exportable as Markdown and JSON. `version` changes when the
 * workspace stored a question or an answer.
 */
export function HistoryPanel({
  library,
  version,
  onAsk,
  onError,
}: {
  library: Library;
  version: number;
  onAsk: (question: string) => void;
  onError: (message: string) => void;
}) {
  const [records, setRecords] = useState<QuestionRecord[]>([]);
  const [query, setQuery] = useState('');
  const reload = useCallback(
    () =>
      library
        .listQuestions()
        .then(setRecords)
        .catch((e: Error) => onError(e.message)),
    [library, onError],
  );
  useEffect(() => {
    void reload();
  }, [reload, version]);
  const shown = useMemo(() => searchHistory(records, query), [records, query]);
  const stamp = new Date().toISOString().slice(0, 10);

  return (
    <details className="history" data-testid="history">
      <summary>
        Questions asked <span className="stats">({records.length})</span>
      </summary>
      <div className="history__tools">
        <SearchField
          id="history-search"
          label="Search the history"
          value={query}
          onChange={setQuery}
        />
        <button
          type="button"
          disabled={records.length === 0}
          onClick={() =>
            download(`fragrel-history-${stamp}.md`, 'text/markdown', historyToMarkdown(shown))
          }
        >
          Export Markdown
        </button>
        <button
          type="button"
          disabled={records.length === 0}
          onClick={() =>
            download(`fragrel-history-${stamp}.json`, 'application/json', historyToJson(shown))
          }
        >
          Export JSON
        </button>
      </div>
      {shown.length === 0 ? (
        <p className="stats">{records.length ? 'No question matches.' : 'No questions yet.'}</p>
      ) : (
        <ol className="history__list">
          {shown.map((r) => (
            <li key={r.id} className="history__item" data-testid="history-item">
              <button
                type="button"
                className="link history__question"
                onClick={() => onAsk(r.question)}
              >
                {r.question}
              </button>
              <span className="stats"> · {new Date(r.date).toLocaleString()}</span>
              {r.answer && (
                <details>
                  <summary className="stats">Answer</summary>
                  <MarkdownAnswer text={r.answer} sources={null} testId="history-answer" />
                  {r.citations && r.citations.length > 0 && (
                    <ul className="stats">
                      {r.citations.map((c) => (
                        <li key={c.label}>
                          [{c.label}] {c.location}
                        </li>
                      ))}
                    </ul>
                  )}
                </details>
              )}
              <button
                type="button"
                className="link"
                aria-label={`Delete “${r.question}” from the history`}
                onClick={() =>
                  void library
                    .deleteQuestion(r.id)
                    .then(reload)
                    .catch((e: Error) => onError(e.message))
                }
              >
                Delete
              </button>
            </li>
          ))}
        </ol>
      )}
    </details>
  );
}
