/**
 * @file The main area's views: asking the library, or chatting. A tab list (arrow keys move
 * between tabs), so the names are tabs, not buttons: "Ask" stays the only button of that name.
 */
import { useRef } from 'react';

export type MainView = 'ask' | 'chat';

export const MAIN_VIEWS: ReadonlyArray<{ id: MainView; label: string }> = [
  { id: 'ask', label: 'Ask the library' },
  { id: 'chat', label: 'Chat' },
];

export function ViewSwitch({ view, onView }: { view: MainView; onView: (view: MainView) => void }) {
  const tabs = useRef<Array<HTMLButtonElement | null>>([]);
  const move = (from: number, step: number) => {
    const next = (from + step + MAIN_VIEWS.length) % MAIN_VIEWS.length;
    onView(MAIN_VIEWS[next].id);
    tabs.current[next]?.focus();
  };
  return (
    <div className="view-switch" role="tablist" aria-label="View" data-testid="view-switch">
      {MAIN_VIEWS.map((v, i) => (
        <button
          key={v.id}
          ref={(el) => {
            tabs.current[i] = el;
          }}
          type="button"
          role="tab"
          className="view-switch__tab"
          aria-selected={view === v.id}
          tabIndex={view === v.id ? 0 : -1}
          onClick={() => onView(v.id)}
          onKeyDown={(e) => {
            if (e.key === 'ArrowRight') move(i, 1);
            else if (e.key === 'ArrowLeft') move(i, -1);
            else return;
            e.preventDefault();
          }}
        >
          {v.label}
        </button>
      ))}
    </div>
  );
}
