import { useEffect, useRef, useState } from 'react';
import { VENDORED_DIRECTORIES, type FolderEntry, type SkippedFile } from '../../ingest/repo';

/** A dropped or chosen folder: its files with their paths inside it (its own name first). */
export interface DroppedFolder {
  name: string;
  entries: FolderEntry[];
  /** Directories not even listed (vendored and tool directories such as node_modules, .git). */
  skipped: SkippedFile[];
}

/** The files a folder picker (`webkitdirectory`) gave, as a folder; null when it gave none. */
export function folderFromPicked(files: readonly File[]): DroppedFolder | null {
  if (files.length === 0) return null;
  const entries = files.map((file) => ({
    path: file.webkitRelativePath || file.name,
    file: file as Blob,
  }));
  return { name: entries[0].path.split('/')[0] || 'folder', entries, skipped: [] };
}

/** Read a FileSystemDirectoryEntry to the end (readEntries answers in batches). */
function readAll(reader: FileSystemDirectoryReader): Promise<FileSystemEntry[]> {
  return new Promise((resolve, reject) => {
    const all: FileSystemEntry[] = [];
    const next = () =>
      reader.readEntries((batch) => {
        if (batch.length === 0) resolve(all);
        else {
          all.push(...batch);
          next();
        }
      }, reject);
    next();
  });
}

function fileOf(entry: FileSystemFileEntry): Promise<File> {
  return new Promise((resolve, reject) => entry.file(resolve, reject));
}

/**
 * Every file under a dropped directory, with its path from the directory (its name first).
 * Vendored and tool directories are not walked (a node_modules can hold 10^5 files); they are
 * reported as left out, as the ingest would have.
 */
export async function collectFolder(root: FileSystemDirectoryEntry): Promise<DroppedFolder> {
  const entries: FolderEntry[] = [];
  const skipped: SkippedFile[] = [];
  const walk = async (dir: FileSystemDirectoryEntry, path: string): Promise<void> => {
    for (const entry of await readAll(dir.createReader())) {
      const at = `${path}/${entry.name}`;
      if (entry.isDirectory) {
        if (VENDORED_DIRECTORIES.has(entry.name)) {
          skipped.push({
            path: `${at.slice(root.name.length + 1)}/`,
            reason: 'vendored',
            detail: 'vendored or tool directory, not read',
          });
          continue;
        }
        await walk(entry as FileSystemDirectoryEntry, at);
      } else if (entry.isFile) {
        entries.push({ path: at, file: await fileOf(entry as FileSystemFileEntry) });
      }
    }
  };
  await walk(root, root.name);
  return { name: root.name, entries, skipped };
}

/**
 * The whole window accepts dropped files and folders; visible buttons do the same for keyboard
 * users. A folder's entries must be taken from the drop event itself (the browser clears them
 * afterwards), then walked.
 */
export function DropZone({
  onFiles,
  onFolder,
  accept,
}: {
  onFiles: (files: File[]) => void;
  /** A dropped or chosen folder (a repository); without it folders are not offered. */
  onFolder?: (folder: DroppedFolder) => void;
  accept: string;
}) {
  const [over, setOver] = useState(false);
  const depth = useRef(0);
  const input = useRef<HTMLInputElement>(null);
  const folderInput = useRef<HTMLInputElement>(null);

  useEffect(() => {
    const hasFiles = (e: DragEvent) => [...(e.dataTransfer?.types ?? [])].includes('Files');
    const enter = (e: DragEvent) => {
      if (!hasFiles(e)) return;
      e.preventDefault();
      depth.current++;
      setOver(true);
    };
    const leave = (e: DragEvent) => {
      if (!hasFiles(e)) return;
      depth.current = Math.max(0, depth.current - 1);
      if (depth.current === 0) setOver(false);
    };
    const overFn = (e: DragEvent) => {
      if (hasFiles(e)) e.preventDefault();
    };
    const drop = (e: DragEvent) => {
      e.preventDefault();
      depth.current = 0;
      setOver(false);
      const items = [...(e.dataTransfer?.items ?? [])].filter((i) => i.kind === 'file');
      // Synchronously, while the drop's data is readable.
      const taken = items.map((i) => ({
        entry: i.webkitGetAsEntry?.() ?? null,
        file: i.getAsFile(),
      }));
      const folders = taken.filter((t) => t.entry?.isDirectory);
      if (onFolder && folders.length > 0) {
        const files = taken.filter((t) => !t.entry?.isDirectory && t.file).map((t) => t.file!);
        if (files.length) onFiles(files);
        for (const f of folders) {
          void collectFolder(f.entry as FileSystemDirectoryEntry).then(onFolder, () =>
            onFolder({ name: f.entry!.name, entries: [], skipped: [] }),
          );
        }
        return;
      }
      const files = [...(e.dataTransfer?.files ?? [])];
      if (files.length) onFiles(files);
    };
    window.addEventListener('dragenter', enter);
    window.addEventListener('dragleave', leave);
    window.addEventListener('dragover', overFn);
    window.addEventListener('drop', drop);
    return () => {
      window.removeEventListener('dragenter', enter);
      window.removeEventListener('dragleave', leave);
      window.removeEventListener('dragover', overFn);
      window.removeEventListener('drop', drop);
    };
  }, [onFiles, onFolder]);

  return (
    <>
      <button type="button" className="primary" onClick={() => input.current?.click()}>
        Add files…
      </button>
      {onFolder && (
        <button type="button" onClick={() => folderInput.current?.click()}>
          Add a folder…
        </button>
      )}
      <input
        ref={input}
        type="file"
        multiple
        accept={accept}
        hidden
        data-testid="file-input"
        onChange={(e) => {
          const files = [...(e.target.files ?? [])];
          e.target.value = '';
          if (files.length) onFiles(files);
        }}
      />
      {onFolder && (
        <input
          ref={folderInput}
          type="file"
          hidden
          data-testid="folder-input"
          // Not in React's types: the folder picker of every current browser.
          {...{ webkitdirectory: '' }}
          onChange={(e) => {
            const folder = folderFromPicked([...(e.target.files ?? [])]);
            e.target.value = '';
            if (folder) onFolder(folder);
          }}
        />
      )}
      {over && (
        <div className="drop-overlay" aria-hidden="true">
          Drop to add to the library
        </div>
      )}
    </>
  );
}
