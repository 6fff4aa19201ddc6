/**
 * @file The encoding a document was read in, shown when it is not UTF-8, with a choice of another encoding and a re-read (a Shift-JIS file was accepted as garbled
 * text with no way to say what it was).
 */
import { useState } from 'react';
import { encodingLabel, READABLE_ENCODINGS } from '../../ingest/encodings';
import type { DocumentRecord } from '../../store';

export function EncodingChoice({
  doc,
  canReread,
  onReread,
}: {
  doc: DocumentRecord;
  /** The file is at hand (added in this session), so it can be read again. */
  canReread: boolean;
  onReread: (encoding: string) => void;
}) {
  const current = doc.encoding ?? 'utf-8';
  const [choice, setChoice] = useState(current);
  // UTF-8 is never a guess (valid UTF-8 is no accident); anything else may be changed.
  if (!doc.encodingGuessed && current === 'utf-8') return null;
  return (
    <div className="library__meta" data-testid="encoding">
      <span data-testid="encoding-detected" data-encoding={current}>
        Read as {encodingLabel(current)} ({doc.encodingGuessed ? 'detected' : 'chosen'}).
      </span>{' '}
      {canReread ? (
        <span className="library__encoding">
          <label>
            Encoding{' '}
            <select
              aria-label={`Encoding of ${doc.name}`}
              value={choice}
              onChange={(e) => setChoice(e.target.value)}
            >
              {READABLE_ENCODINGS.map((e) => (
                <option key={e.encoding} value={e.encoding}>
                  {e.label}
                </option>
              ))}
            </select>
          </label>{' '}
          <button type="button" disabled={choice === current} onClick={() => onReread(choice)}>
            Re-read
          </button>
        </span>
      ) : (
        <span>Garbled? Drop the file again to choose another encoding.</span>
      )}
    </div>
  );
}
