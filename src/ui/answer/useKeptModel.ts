/**
 * @file The in-browser model the settings point to, when it is kept in this browser but not
 * loaded (after a reload): its name, so the panel can say that asking loads it, and answer.
 */
import { useEffect, useState } from 'react';
import { keptInBrowser, sourceName } from '../../llm/wllama';
import type { LocalSource } from './useLocalModel';

/**
 * The kept model's name while `source` is a GGUF URL that wllama's cache holds whole and no
 * model is loaded (`loadedState` null); else null. Checked again when the source changes or a
 * load ends (a model loaded once is kept from then on).
 */
export function useKeptModel(
  source: LocalSource | null,
  loadedState: string | null,
): string | null {
  const url = source?.kind === 'wllama' && source.source.kind === 'url' ? source.source.url : null;
  const [kept, setKept] = useState<{ url: string; kept: boolean } | null>(null);
  useEffect(() => {
    if (!url) return;
    let live = true;
    void keptInBrowser(url).then((k) => {
      if (live) setKept({ url, kept: k });
    });
    return () => {
      live = false;
    };
  }, [url, loadedState]);
  if (!url || loadedState !== null || kept?.url !== url || !kept.kept) return null;
  return sourceName({ kind: 'url', url });
}
