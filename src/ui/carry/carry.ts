/**
 * @file Export and import of library files in the page: the store makes and reads the file
 * (store/carry.ts); here it is saved through a download and read from a chosen file.
 */
import { parquetImportProblem } from '../../store/parquet/recognise';
import {
  LibraryFileError,
  LIBRARY_FILE_EXTENSION,
  packLibrary,
  unpackLibrary,
  type DocumentRecord,
  type Library,
} from '../../store';

/** A file name from a document name: no path separators or control characters. */
export function safeName(name: string): string {
  return name.replace(/[\\/:*?"<>|\p{Cc}]+/gu, '_').slice(0, 80) || 'library';
}

/** Offer `bytes` as a download named `name`. */
function download(bytes: Uint8Array, name: string): void {
  downloadBlob(new Blob([bytes as BlobPart], { type: 'application/zip' }), name);
}

/** Offer a Blob as a download named `name`. */
export function downloadBlob(blob: Blob, name: string): void {
  const url = URL.createObjectURL(blob);
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
  const bytes = new Uint8Array(await file.arrayBuffer());
  // A Parquet file (or a zip of them) is told apart first, so its message says what it is.
  const parquet = await parquetImportProblem(bytes);
  if (parquet) throw new LibraryFileError(parquet);
  const { records } = unpackLibrary(bytes);
  return library.importRecords(records);
}
