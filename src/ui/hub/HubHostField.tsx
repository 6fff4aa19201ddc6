/**
 * @file The model hub field: applied as it is typed whenever it reads as an http(s) address
 * (normalised: `huggingface.co` → `https://huggingface.co/`), with a message and nothing changed
 * when it does not. What is typed stays in the field until the person leaves it.
 */
import { useId, useState } from 'react';
import { normaliseHost } from '../../models/settings';
import './hub.css';

export function HubHostField({
  host,
  onHost,
  label = 'Download models from (hub host)',
  testId = 'hub-host',
}: {
  host: string;
  /** A valid, normalised host the person chose. */
  onHost: (host: string) => void;
  label?: string;
  testId?: string;
}) {
  const id = useId();
  const [draft, setDraft] = useState<string | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const type = (text: string) => {
    setDraft(text);
    try {
      const next = normaliseHost(text);
      setProblem(null);
      if (next !== host) onHost(next);
    } catch (e) {
      setProblem((e as Error).message);
    }
  };
  return (
    <div className="hub-host">
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        data-testid={testId}
        value={draft ?? host}
        spellCheck={false}
        aria-invalid={problem !== null}
        aria-describedby={`${id}-help`}
        onChange={(e) => type(e.target.value)}
        onBlur={() => {
          if (problem === null) setDraft(null);
        }}
      />
      <p
        id={`${id}-help`}
        className={problem ? 'hint hint--error' : 'hint'}
        role={problem ? 'alert' : undefined}
      >
        {problem ??
          'Every model download comes from here: the embedders, the GGUF models and the evaluation page. The Hugging Face hub, or a mirror in its /{model}/resolve/main/{file} layout.'}
      </p>
    </div>
  );
}
