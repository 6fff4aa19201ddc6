/**
 * @file One file of the repository, line by line: the selected windows highlighted with their
 * three scores (independent + alpha x environment = final) at their first line, the window
 * being explained outlined, the windows kept out of the ranking (they hold the cursor) hatched,
 * the cursor of a completion with the engine's completion written in place, and the lines after
 * the cursor dimmed (the model does not see them).
 *
 * Keyboard: the code area is focusable and scrolls with the arrow keys; the cursor line is set
 * with the number field above it (a click on a line number sets it too); window marks are
 * buttons.
 */
import { memo, useEffect, useRef } from 'react';
import type { RetrievalResult } from '../../workers/retrieval-types';
import { fmt } from '../components/ScoreBar';
import type { RunWindow } from './model';

export interface InlineCompletion {
  text: string;
  status: 'waiting' | 'streaming' | 'done' | 'stopped' | 'error';
}

export interface CodeViewerProps {
  path: string;
  lines: readonly string[];
  /** This file's windows in the current run (empty before a question). */
  windows: readonly RunWindow[];
  result: RetrievalResult | null;
  focused: number | null;
  /** The cursor line when the completion is in this file, else null. */
  cursor: number | null;
  completion: InlineCompletion | null;
  /** A line to bring into view, each time `n` changes. */
  scrollTo: { line: number; n: number } | null;
  onPickWindow: (index: number) => void;
  onCursor: (line: number) => void;
}

export const CodeViewer = memo(function CodeViewer({
  path,
  lines,
  windows,
  result,
  focused,
  cursor,
  completion,
  scrollTo,
  onPickWindow,
  onCursor,
}: CodeViewerProps) {
  const box = useRef<HTMLDivElement>(null);

  useEffect(() => {
    if (scrollTo === null || !box.current) return;
    const el = box.current.querySelector<HTMLElement>(`[data-line="${scrollTo.line}"]`);
    // The viewer is the lines' offset parent (position: relative).
    if (el) box.current.scrollTop = Math.max(0, el.offsetTop - 48);
  }, [scrollTo, path]);

  const selected = new Set(result?.selected ?? []);
  const excluded = new Set(result?.excluded ?? []);
  const shown = windows.filter((w) => selected.has(w.index) || w.index === focused);
  const marksAt = new Map<number, RunWindow[]>();
  for (const w of shown) {
    const list = marksAt.get(w.first) ?? [];
    list.push(w);
    marksAt.set(w.first, list);
  }
  // Per line: covered by a selected / the focused / an excluded window.
  const n = lines.length;
  const inSelected = new Uint8Array(n + 2);
  const inFocused = new Uint8Array(n + 2);
  const inExcluded = new Uint8Array(n + 2);
  for (const w of windows) {
    for (let l = w.first; l <= Math.min(w.last, n); l++) {
      if (selected.has(w.index)) inSelected[l] = 1;
      if (w.index === focused) inFocused[l] = 1;
      if (excluded.has(w.index)) inExcluded[l] = 1;
    }
  }
  const alpha = result?.settings.alpha ?? 0;

  const rows: React.ReactNode[] = [];
  for (let l = 1; l <= n + 1; l++) {
    if (cursor === l) {
      rows.push(
        <div key="cursor" className="code-cursor" data-testid="code-cursor" data-line-cursor={l}>
          <span aria-hidden="true">▸</span> Cursor: the completion starts at line {l}. The lines
          below it are not sent to the model.
          {completion && (
            <pre
              className="code-completion"
              data-testid="completion-inline"
              data-status={completion.status}
              aria-live="polite"
              aria-busy={completion.status === 'streaming'}
            >
              {completion.text ||
                (completion.status === 'waiting' ? 'Waiting for the model…' : '(no completion)')}
            </pre>
          )}
        </div>,
      );
    }
    if (l > n) break;
    for (const w of marksAt.get(l) ?? []) {
      const i = w.index;
      const rank = result?.explanations[i]?.rank;
      rows.push(
        <div key={`mark-${i}`} className="code-mark">
          <button
            type="button"
            className={`code-mark__button${i === focused ? ' code-mark__button--focused' : ''}`}
            data-window={i}
            data-selected={selected.has(i)}
            aria-pressed={i === focused}
            onClick={() => onPickWindow(i)}
          >
            {selected.has(i) ? 'Selected' : 'Window'} {w.path}:{w.first}-{w.last}
            {rank !== undefined && ` · rank ${rank + 1}`}
            {result && (
              <span className="code-mark__eq">
                {' '}
                · {fmt(result.independent[i])} + {fmt(alpha)}×{fmt(result.environment[i])} ={' '}
                {fmt(result.final[i])}
              </span>
            )}
          </button>
        </div>,
      );
    }
    const cls = [
      'code-line',
      inSelected[l] ? 'code-line--selected' : '',
      inFocused[l] ? 'code-line--focused' : '',
      inExcluded[l] ? 'code-line--excluded' : '',
      cursor !== null && l >= cursor ? 'code-line--after' : '',
    ]
      .filter(Boolean)
      .join(' ');
    rows.push(<CodeLine key={l} line={l} text={lines[l - 1]} cls={cls} onCursor={onCursor} />);
  }

  return (
    <div
      ref={box}
      className="code-viewer"
      data-testid="code-viewer"
      data-path={path}
      tabIndex={0}
      role="region"
      aria-label={`Code of ${path}`}
    >
      {rows}
    </div>
  );
});

/** One line of the file; memoised, so a re-rank redraws only the lines whose marks changed. */
const CodeLine = memo(function CodeLine({
  line,
  text,
  cls,
  onCursor,
}: {
  line: number;
  text: string;
  cls: string;
  onCursor: (line: number) => void;
}) {
  return (
    <div className={cls} data-line={line}>
      <button
        type="button"
        className="code-line__no"
        tabIndex={-1}
        title={`Put the cursor at line ${line}`}
        onClick={() => onCursor(line)}
      >
        {line}
      </button>
      <span className="code-line__text">{text || ' '}</span>
    </div>
  );
});
