/**
 * @file The message box: Enter sends, Shift+Enter starts a new line; Stop while a reply is
 * being written. Why Send is off, when it is, is said under the box.
 */
export function Composer({
  value,
  onChange,
  onSend,
  onStop,
  busy,
  blocker,
}: {
  value: string;
  onChange: (value: string) => void;
  onSend: () => void;
  onStop: () => void;
  /** A reply is being prepared or written. */
  busy: boolean;
  /** Why a message cannot be sent now (the engine is not set up), or null. */
  blocker: string | null;
}) {
  const canSend = !busy && blocker === null && value.trim() !== '';
  return (
    <form
      className="chat__composer"
      onSubmit={(e) => {
        e.preventDefault();
        if (canSend) onSend();
      }}
    >
      <label htmlFor="chat-message" className="visually-hidden">
        Message
      </label>
      <textarea
        id="chat-message"
        rows={3}
        value={value}
        placeholder="Write a message…"
        onChange={(e) => onChange(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === 'Enter' && !e.shiftKey && !e.nativeEvent.isComposing) {
            e.preventDefault();
            if (canSend) onSend();
          }
        }}
      />
      <div className="chat__composer-actions">
        <button type="submit" className="primary" disabled={!canSend}>
          Send
        </button>
        {busy && (
          <button type="button" onClick={onStop}>
            Stop
          </button>
        )}
      </div>
      {blocker && !busy && (
        <p className="engine__hint" data-testid="chat-blocker">
          {blocker}
        </p>
      )}
    </form>
  );
}
