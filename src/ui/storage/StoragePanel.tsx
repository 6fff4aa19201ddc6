/**
 * @file What the library costs: the browser's usage and quota (`navigator.storage.estimate()`),
 * whether the storage is persistent, each document's stored bytes, and the unreferenced records
 * found and reclaimed when the page opened.
 */
import { useEffect, useState } from 'react';
import {
  estimateStorage,
  type DocumentRecord,
  type Library,
  type StorageEstimate,
} from '../../store';
import { formatSize } from '../components/LibraryPanel';

type Reclaimed = { records: number; bytes: number } | { error: string } | null;

async function persisted(): Promise<boolean | undefined> {
  try {
    return typeof navigator !== 'undefined' && navigator.storage?.persisted
      ? await navigator.storage.persisted()
      : undefined;
  } catch {
    return undefined;
  }
}

export function StoragePanel({
  library,
  documents,
}: {
  library: Library;
  documents: readonly DocumentRecord[] | null;
}) {
  const [estimate, setEstimate] = useState<StorageEstimate | undefined | null>(null);
  const [persistent, setPersistent] = useState<boolean | undefined | null>(null);
  const [reclaimed, setReclaimed] = useState<Reclaimed>(null);

  // Once per page: storage that no document references is found and given back.
  useEffect(() => {
    library
      .reclaimUnreferenced()
      .then(setReclaimed, (e: Error) => setReclaimed({ error: e.message }));
  }, [library]);

  // Usage changes with every document added or removed.
  useEffect(() => {
    let live = true;
    void Promise.all([estimateStorage(), persisted()]).then(([e, p]) => {
      if (!live) return;
      setEstimate(e);
      setPersistent(p);
    });
    return () => {
      live = false;
    };
  }, [documents, reclaimed]);

  const docs = [...(documents ?? [])].sort((a, b) => b.storedBytes - a.storedBytes);
  return (
    <details className="storage" data-testid="storage-panel">
      <summary>Storage</summary>
      <p className="stats" data-testid="storage-usage">
        {estimate === null
          ? 'Measuring…'
          : estimate
            ? `${formatSize(estimate.usage)} used of ${formatSize(estimate.quota)} this browser allows (${((100 * estimate.usage) / Math.max(1, estimate.quota)).toFixed(1)}%).`
            : 'This browser does not say how much storage is used.'}
      </p>
      <p className="stats" data-testid="storage-persistence">
        {persistent === null
          ? ''
          : persistent
            ? 'Persistent: the browser keeps the library when space runs low.'
            : persistent === false
              ? 'Not persistent: the browser may clear the library when space runs low.'
              : 'This browser does not say whether the storage is persistent.'}
      </p>
      <p className="stats" data-testid="storage-reclaimed">
        {reclaimed === null
          ? 'Checking for storage no document uses…'
          : 'error' in reclaimed
            ? `Could not check for unused storage: ${reclaimed.error}`
            : reclaimed.records === 0
              ? 'No unused storage found when the page opened.'
              : `Reclaimed ${reclaimed.records} stored records (${formatSize(reclaimed.bytes)}) that no document used.`}
      </p>
      {docs.length > 0 && (
        <table className="storage__docs">
          <caption>Stored per document</caption>
          <tbody>
            {docs.map((d) => (
              <tr key={d.id} data-testid="storage-doc">
                <th scope="row">{d.name}</th>
                <td>{formatSize(d.storedBytes)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </details>
  );
}
