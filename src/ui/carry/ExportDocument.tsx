/** @file One document's export button in the library list. */
import type { DocumentRecord, Library } from '../../store';
import { exportToFile } from './carry';

export function ExportDocument({
  library,
  doc,
  notify,
}: {
  library: Library;
  doc: DocumentRecord;
  notify: (kind: 'info' | 'error', text: string) => void;
}) {
  return (
    <button
      type="button"
      className="library__export"
      aria-label={`Export ${doc.name}`}
      title="Export this document with its index as one file"
      onClick={() =>
        void exportToFile(library, doc).catch((e: Error) =>
          notify('error', `“${doc.name}” could not be exported: ${e.message}`),
        )
      }
    >
      Export
    </button>
  );
}
