/**
 * @file Export and import of library files in the page: the store makes and reads the file
 * (store/carry.ts); here it is saved through a download and read from a chosen file.
 */
import {
  LIBRARY_FILE_EXTENSION,
  packLibrary,
  unpackLibrary,
  type DocumentRecord,
  type Library,
} from '../../store';

/** A file name from a document name: no path separators or control characters. */
function safeName(name: string): string {
  return name.replace(/[\\/:*?"<>|\p{Cc}]+/gu, '_').slice(0, 80) || 'library';
}

/** Offer `bytes` as a download named `name`. */
function download(bytes: Uint8Array, name: string): void {
  const url = URL.createObjectURL(new Blob([bytes as BlobPart], { type: 'application/zip' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  a.click();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** Export the whole library (with settings), or one document, as a file download. */
export async function exportToFile(library: Library, doc?: DocumentRecord): Promise<void> {
  const records = await library.exportRecords(doc ? [doc.id] : undefined);
  const stamp = new Date().toISOString().slice(0, 10);
  const name = doc ? safeName(doc.name) : `fragrel-library-${stamp}`;
  download(packLibrary(records, doc ? 'documents' : 'library'), name + LIBRARY_FILE_EXTENSION);
}

/** Import a library file; resolves with what was added and what was already there. */
export async function importFromFile(
  library: Library,
  file: Blob,
): Promise<{ added: string[]; skipped: string[]; settings: boolean }> {
  const { records } = unpackLibrary(new Uint8Array(await file.arrayBuffer()));
  return library.importRecords(records);
}
