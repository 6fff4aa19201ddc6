/**
 * @file The one model-hub setting: where every model download comes from (transformer embedders
 * in the main app, the GGUF catalogue, the evaluation page's embedders), the Hugging Face hub or
 * a mirror in its layout. It is stored once, as `hubHost` of the library's index settings (where
 * the embedders have always read it), so every page and panel reads and writes the same value.
 */
import { DEFAULT_HUB_HOST, normaliseHost } from '../../models/settings';

/** Where the setting is shown, so an error message can point at it. */
export const HUB_SETTING_PLACE =
  '“Model hub” under “How passages are chosen” › Advanced (it serves every model download)';

export interface HubSettingsStore {
  getSetting<T>(key: string, fallback: T): Promise<T>;
  setSetting<T>(key: string, value: T): Promise<void>;
}

/** The stored hub host, or the Hugging Face hub. */
export async function readHubHost(store: HubSettingsStore): Promise<string> {
  const index = await store.getSetting<Record<string, unknown> | null>('index', null);
  const host = index?.hubHost;
  return typeof host === 'string' && host ? host : DEFAULT_HUB_HOST;
}

/**
 * Store a hub host typed by the person: normalised (`huggingface.co` → `https://huggingface.co/`)
 * and merged into the index settings, leaving the other index settings as they are. Throws a
 * message for the person when it is not an http(s) address; nothing is stored then.
 */
export async function writeHubHost(store: HubSettingsStore, typed: string): Promise<string> {
  const host = normaliseHost(typed);
  const index = await store.getSetting<Record<string, unknown> | null>('index', null);
  await store.setSetting('index', { ...(index ?? {}), hubHost: host });
  return host;
}
