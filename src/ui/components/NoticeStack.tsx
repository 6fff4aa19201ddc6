/**
 * @file The page's notices (errors and information), newest last, each with Dismiss; once two or
 * more are stacked, one "Dismiss all" clears them.
 */
export interface Notice {
  id: number;
  kind: 'error' | 'info';
  text: string;
}

export function NoticeStack({
  notices,
  onDismiss,
}: {
  notices: readonly Notice[];
  /** Dismiss these notices (one, or all of them). */
  onDismiss: (ids: number[]) => void;
}) {
  return (
    <>
      {notices.length > 1 && (
        <div className="notice-stack__all">
          <button
            type="button"
            data-testid="dismiss-all"
            onClick={() => onDismiss(notices.map((n) => n.id))}
          >
            Dismiss all {notices.length} notices
          </button>
        </div>
      )}
      {notices.map((n) => (
        <div
          key={n.id}
          className={`notice${n.kind === 'info' ? ' notice--info' : ''}`}
          role={n.kind === 'error' ? 'alert' : 'status'}
          data-testid="notice"
        >
          {n.text}{' '}
          <button type="button" onClick={() => onDismiss([n.id])}>
            Dismiss
          </button>
        </div>
      ))}
    </>
  );
}
