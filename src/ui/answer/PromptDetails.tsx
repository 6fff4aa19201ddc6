import { promptAsSent, type Prompt } from '../../core/prompt';

const n = (x: number) => x.toLocaleString('en');

/** What the fitting did, in one sentence. */
export function fitSummary(prompt: Prompt, exact: boolean): string {
  const kept = prompt.sources.length;
  const total = kept + prompt.dropped.length;
  const parts = [
    `${kept} of ${total} selected fragment${total === 1 ? '' : 's'} sent`,
    `${exact ? '' : 'about '}${n(prompt.tokens)} prompt tokens of ${n(prompt.limit)} available`,
  ];
  if (prompt.dropped.length) {
    parts.push(
      prompt.passageCap !== undefined
        ? `${prompt.dropped.length} lowest-ranked left out to keep within the reading budget`
        : `${prompt.dropped.length} lowest-ranked left out to fit the model's context window`,
    );
  }
  const cut = prompt.truncated.find((t) => t.part === 'fragment');
  if (cut) parts.push(`excerpt cut to ${n(cut.keptChars)} of ${n(cut.originalChars)} characters`);
  if (prompt.droppedTurns.length) parts.push(`${prompt.droppedTurns.length} older turns left out`);
  return `${parts.join('; ')}.`;
}

/** "Show the prompt": the exact text the engine was sent, and what was left out. */
export function PromptDetails({ prompt, exact }: { prompt: Prompt; exact: boolean }) {
  return (
    <details className="answer__prompt" data-testid="prompt-details">
      <summary>Show the prompt</summary>
      <p className="stats" data-testid="prompt-summary">
        {fitSummary(prompt, exact)}{' '}
        {prompt.style === 'chat'
          ? 'Sent as chat messages (role in brackets).'
          : 'Sent as plain text for the model to continue.'}
      </p>
      {prompt.dropped.length > 0 && (
        <p className="stats" data-testid="prompt-dropped">
          Left out: {prompt.dropped.map((d) => d.location).join('; ')}
        </p>
      )}
      <pre className="answer__prompt-text" data-testid="prompt-text" tabIndex={0}>
        {promptAsSent(prompt)}
      </pre>
    </details>
  );
}
