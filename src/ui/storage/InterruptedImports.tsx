/**
 * @file Imports a closed tab or a crash cut short, reported on the next visit with Retry (which
 * asks for the file, the zip or the folder again: the page that had it is gone) and Dismiss.
 */
import { useEffect, useRef, useState } from 'react';
import type { DocumentRecord } from '../../store';
import { folderFromPicked, type DroppedFolder } from '../components/DropZone';
import type { ImportJournal, JournalEntry } from './import-journal';

/** What was cut short, in words. */
function what(e: JournalEntry): string {
  if (e.kind === 'folder') return `the folder “${e.name}”`;
  if (e.kind === 'zip') return `the repository “${e.name}”`;
  return `“${e.name}”`;
}

export function InterruptedImports({
  journal,
  documents,
  onFiles,
  onFolder,
}: {
  journal: ImportJournal;
  /** The library as listed; an entry whose document was stored after all is dropped silently. */
  documents: readonly DocumentRecord[] | null;
  onFiles: (files: File[]) => void;
  onFolder: (folder: DroppedFolder) => void;
}) {
  const [entries, setEntries] = useState<JournalEntry[]>([]);
  // Whether the journal has been read: until then "no report" means nothing yet (a test waits
  // for it before it holds that nothing was cut short).
  const [read, setRead] = useState(false);
  const picker = useRef<HTMLInputElement>(null);
  const folderPicker = useRef<HTMLInputElement>(null);
  const retrying = useRef<string | null>(null);

  useEffect(() => {
    if (!documents) return;
    let live = true;
    void journal.interrupted().then((found) => {
      if (!live) return;
      const stored = found.filter((e) =>
        documents.some((d) => d.name === e.name && d.addedAt >= e.startedAt),
      );
      for (const e of stored) journal.dismiss(e.id);
      setEntries(found.filter((e) => !stored.includes(e)));
      setRead(true);
    });
    return () => {
      live = false;
    };
    // Once, when the library is first listed: later entries belong to this page's own jobs.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [documents === null]);

  const dismiss = (id: string) => {
    journal.dismiss(id);
    setEntries((all) => all.filter((e) => e.id !== id));
  };

  if (entries.length === 0) {
    return read ? <span hidden data-testid="interrupted-imports" data-journal="read" /> : null;
  }
  return (
    <div className="notices" data-testid="interrupted-imports" data-journal="read">
      {entries.map((e) => (
        <div key={e.id} className="notice" role="alert" data-testid="interrupted">
          <span>
            Adding {what(e)} was cut short when the page closed (started{' '}
            {new Date(e.startedAt).toLocaleString()}). Nothing of it was stored.
          </span>{' '}
          <button
            type="button"
            onClick={() => {
              retrying.current = e.id;
              (e.kind === 'folder' ? folderPicker : picker).current?.click();
            }}
          >
            Retry
          </button>{' '}
          <button type="button" onClick={() => dismiss(e.id)}>
            Dismiss
          </button>
        </div>
      ))}
      <input
        ref={picker}
        type="file"
        hidden
        aria-label="Choose the file again"
        onChange={(ev) => {
          const files = [...(ev.target.files ?? [])];
          ev.target.value = '';
          if (files.length === 0) return;
          if (retrying.current) dismiss(retrying.current);
          onFiles(files);
        }}
      />
      <input
        ref={folderPicker}
        type="file"
        hidden
        aria-label="Choose the folder again"
        {...{ webkitdirectory: '' }}
        onChange={(ev) => {
          const folder = folderFromPicked([...(ev.target.files ?? [])]);
          ev.target.value = '';
          if (!folder) return;
          if (retrying.current) dismiss(retrying.current);
          onFolder(folder);
        }}
      />
    </div>
  );
}
