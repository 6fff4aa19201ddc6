/**
 * @file The recommended GGUF models for wllama, each one click from downloaded and loaded, with
 * its size, licence and what it is good for, and whether this browser already keeps a copy.
 */
import { useCallback, useEffect, useState } from 'react';
import {
  formatBytes,
  GGUF_MODELS,
  ggufCatalogueUrl,
  type GgufModelInfo,
} from '../../llm/gguf-catalogue';
import { HubHostField } from '../hub/HubHostField';
import { listCachedGguf, removeCachedGguf, type CachedGguf } from '../../llm/wllama';
import { measuredAnswerText, modelFileOf } from './ReadingBudget';

export interface GgufCatalogueProps {
  /** Hub host the models come from. */
  hub: string;
  onHubChange: (hub: string) => void;
  /** Download (or take from the cache) and load this URL. */
  onLoadUrl: (url: string) => void;
  /** The URL of the model loaded or loading now, if any. */
  activeUrl: string | null;
  busy: boolean;
  idPrefix: string;
}

export function GgufCatalogue({
  hub,
  onHubChange,
  onLoadUrl,
  activeUrl,
  busy,
}: GgufCatalogueProps) {
  const [cached, setCached] = useState<CachedGguf[] | null>(null);
  const refresh = useCallback(() => {
    // OPFS may be unavailable (some private windows): then nothing is listed as kept.
    listCachedGguf().then(setCached, () => setCached([]));
  }, []);
  useEffect(refresh, [refresh, activeUrl]);

  const keptCopy = (url: string) => cached?.find((c) => c.url === url && c.complete) ?? null;

  return (
    <div className="engine__catalogue" data-testid="gguf-catalogue">
      <p className="engine__catalogue-title">
        Recommended models (downloaded once, kept in this browser)
      </p>
      <ul>
        {GGUF_MODELS.map((model: GgufModelInfo) => {
          const url = ggufCatalogueUrl(model, hub);
          const kept = keptCopy(url);
          const size = `${model.exactBytes ? '' : 'about '}${formatBytes(model.bytes)}`;
          return (
            <li key={model.key} data-testid="gguf-model" data-key={model.key}>
              <strong>{model.label}</strong>
              {model.recommended && <span className="engine__badge">recommended</span>}
              <span className="stats">
                {' '}
                · {size} · {model.licence} · context {model.trainedContext.toLocaleString('en')}{' '}
                tokens{kept ? ' · kept in this browser' : ''}
              </span>
              <p className="engine__catalogue-note">{model.goodFor}</p>
              <p className="engine__catalogue-note" data-testid="gguf-measured">
                Speed: {measuredAnswerText(modelFileOf(url))}.
              </p>
              <button
                type="button"
                disabled={busy || activeUrl === url}
                onClick={() => onLoadUrl(url)}
                aria-label={`${kept ? 'Load' : 'Download and load'} ${model.label}`}
              >
                {kept ? 'Load' : `Download (${size})`}
              </button>
              {kept && (
                <button
                  type="button"
                  disabled={busy || activeUrl === url}
                  onClick={() => void removeCachedGguf(url).finally(refresh)}
                  aria-label={`Remove the kept copy of ${model.label}`}
                >
                  Remove copy
                </button>
              )}
            </li>
          );
        })}
      </ul>
      <details className="engine__hub">
        <summary>Download from another hub or mirror</summary>
        <HubHostField host={hub} onHost={onHubChange} label="Model hub" testId="gguf-hub" />
      </details>
    </div>
  );
}
