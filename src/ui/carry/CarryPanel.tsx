/**
 * @file Export the library as one file, and import such a file (a library could not
 * leave the browser).
 */
import { useRef } from 'react';
import type { Library } from '../../store';
import { exportToFile, importFromFile } from './carry';
import { ParquetExport } from './ParquetExport';

export function CarryPanel({
  library,
  onImported,
  notify,
}: {
  library: Library;
  /** After an import: the ids added, and whether settings came with it. */
  onImported: (added: string[], settings: boolean) => void;
  notify: (kind: 'info' | 'error', text: string) => void;
}) {
  const picker = useRef<HTMLInputElement>(null);
  return (
    <div className="carry" data-testid="carry">
      <button
        type="button"
        onClick={() =>
          void exportToFile(library).catch((e: Error) =>
            notify('error', `The library could not be exported: ${e.message}`),
          )
        }
      >
        Export library
      </button>{' '}
      <ParquetExport library={library} notify={notify} />{' '}
      <button type="button" onClick={() => picker.current?.click()}>
        Import library…
      </button>
      <input
        ref={picker}
        type="file"
        hidden
        accept=".zip,.parquet"
        aria-label="Library file to import"
        onChange={(ev) => {
          const file = ev.target.files?.[0];
          ev.target.value = '';
          if (!file) return;
          void importFromFile(library, file).then(
            ({ added, skipped, settings }) => {
              notify(
                'info',
                `Imported ${added.length} document${added.length === 1 ? '' : 's'} from “${file.name}”` +
                  (skipped.length
                    ? `; ${skipped.length} already in the library were left as they are`
                    : '') +
                  (settings ? '; settings restored.' : '.'),
              );
              onImported(added, settings);
            },
            (e: Error) =>
              notify('error', `“${file.name}” was not imported, nothing changed: ${e.message}`),
          );
        }}
      />
    </div>
  );
}
