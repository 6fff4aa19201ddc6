/**
 * @file The sidebar (library, drop zone, storage, history, links) beside the question on a wide
 * screen; on a phone, a drawer behind a "Library" button, so the first screen is the question.
 * The drawer is a modal dialog: opening it moves the focus in, Tab stays inside, Escape, the
 * Close button or a tap outside closes it, and the focus goes back to the button.
 */
import { useCallback, useEffect, useRef, useState, type ReactNode } from 'react';
import { countOf } from '../format/numbers';
import { useNarrowScreen } from './useNarrowScreen';
import './layout.css';

const FOCUSABLE =
  'a[href], button:not([disabled]), input:not([disabled]), select:not([disabled]), textarea:not([disabled]), summary, [tabindex]:not([tabindex="-1"])';

export function LibraryDrawer({
  title,
  documents,
  children,
}: {
  title: string;
  /** How many documents the library holds (null while it opens). */
  documents: number | null;
  children: ReactNode;
}) {
  const narrow = useNarrowScreen();
  const [open, setOpen] = useState(false);
  const opener = useRef<HTMLButtonElement>(null);
  const panel = useRef<HTMLElement>(null);
  const closeButton = useRef<HTMLButtonElement>(null);
  const drawer = narrow && open;

  const close = useCallback(() => {
    setOpen(false);
    requestAnimationFrame(() => opener.current?.focus());
  }, []);

  useEffect(() => {
    if (!drawer) return;
    closeButton.current?.focus();
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape') {
        e.preventDefault();
        close();
        return;
      }
      if (e.key !== 'Tab' || !panel.current) return;
      // Keep Tab inside the open drawer: the page behind it is covered.
      const items = [...panel.current.querySelectorAll<HTMLElement>(FOCUSABLE)].filter(
        (el) => el.offsetParent !== null,
      );
      if (items.length === 0) return;
      const first = items[0];
      const last = items[items.length - 1];
      if (e.shiftKey && document.activeElement === first) {
        e.preventDefault();
        last.focus();
      } else if (!e.shiftKey && document.activeElement === last) {
        e.preventDefault();
        first.focus();
      }
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [drawer, close]);

  return (
    <>
      {narrow && (
        <header className="topbar" data-testid="topbar">
          <h1>{title}</h1>
          <button
            ref={opener}
            type="button"
            aria-expanded={open}
            aria-controls="library-drawer"
            data-testid="library-drawer-open"
            onClick={() => setOpen(true)}
          >
            Library{documents === null ? '' : ` (${countOf(documents, 'document')})`}
          </button>
        </header>
      )}
      <aside
        ref={panel}
        id="library-drawer"
        className={`sidebar${narrow ? ' sidebar--drawer' : ''}`}
        hidden={narrow && !open}
        {...(narrow ? { role: 'dialog', 'aria-modal': true, 'aria-label': 'Library' } : {})}
        data-testid="library-drawer"
      >
        {narrow ? (
          <div className="drawer__head">
            <h2 className="card__title">Library</h2>
            <button ref={closeButton} type="button" onClick={close}>
              Close
            </button>
          </div>
        ) : (
          <h1>{title}</h1>
        )}
        {children}
      </aside>
      {drawer && <div className="drawer__backdrop" onClick={close} aria-hidden="true" />}
    </>
  );
}
