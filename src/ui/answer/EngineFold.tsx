/**
 * @file The answer panel's engine form on a phone: open while no engine is chosen, folded to one
 * line ("Engine: OpenAI-compatible · model at host") once one is, so the form does not sit
 * between the question and the evidence. On a wide screen the form stays as it was, beside the
 * evidence rather than above it.
 */
import { useState, type ReactNode } from 'react';
import { hostOf } from '../../llm/errors';
import { ENGINE_LABELS, isApiEngine, type EngineSettings } from '../../llm/settings';

/** The engine in one line, as the folded form's summary says it. */
export function engineSummary(s: EngineSettings): string {
  if (isApiEngine(s.kind)) {
    return `${ENGINE_LABELS[s.kind]} · ${s[s.kind].model || 'no model'} at ${hostOf(s[s.kind].baseUrl) || '?'}`;
  }
  return ENGINE_LABELS[s.kind];
}

/**
 * Whether the folded form is open: open while no engine is chosen; it folds when an answer starts
 * with a chosen engine (not while the person is still typing its settings) and when the page
 * opens with one chosen. `reveal` opens it (the "use an API key" offer).
 */
export function useEngineFold(ready: boolean, runs: number) {
  const [open, setOpen] = useState(!ready);
  // The person opened or closed it: the stored settings arriving do not fold it under them.
  const [touched, setTouched] = useState(false);
  // Adjusted while rendering, from the values seen last (React's pattern for state that follows
  // a prop), so the fold never shows one frame in the wrong state.
  const [seen, setSeen] = useState({ ready, runs });
  if (seen.ready !== ready || seen.runs !== runs) {
    setSeen({ ready, runs });
    if (!ready) setOpen(true);
    else if (runs !== seen.runs && runs > 0) setOpen(false);
    // Became ready with nobody at the form: the stored settings were read.
    else if (!seen.ready && !touched && !document.activeElement?.closest('.engine')) setOpen(false);
  }
  return {
    open,
    /** Open it (the "use an API key" offer). */
    reveal: () => {
      setOpen(true);
      setTouched(true);
    },
    /** The person toggled the summary (a programmatic change reports the state it already has). */
    toggle: (next: boolean) => {
      if (next === open) return;
      setOpen(next);
      setTouched(true);
    },
  };
}

export function EngineFold({
  narrow,
  open,
  onToggle,
  summary,
  children,
}: {
  narrow: boolean;
  open: boolean;
  onToggle: (open: boolean) => void;
  summary: string;
  children: ReactNode;
}) {
  if (!narrow) return <>{children}</>;
  return (
    <details
      className="answer__engine-fold"
      open={open}
      onToggle={(e) => onToggle((e.currentTarget as HTMLDetailsElement).open)}
      data-testid="engine-fold"
    >
      <summary>
        Engine: <span data-testid="engine-fold-summary">{summary}</span>
      </summary>
      {children}
    </details>
  );
}
