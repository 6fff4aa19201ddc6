/**
 * @file API keys. A key lives in this page's memory unless the person ticks "remember"; then it
 * is also written to the library's settings (IndexedDB, on this device, not encrypted) until
 * they press Forget.
 *
 * Each key belongs to one scope, the engine kind and the origin of its base URL (settings.ts,
 * `keyScope`). Changing the base URL to another origin shows another (empty) key: a key typed
 * for one endpoint is never sent to another.
 */

export const KEYS_SETTING = 'llm.keys';

/** The part of the library the key ring uses. */
export interface SettingsStore {
  getSetting<T>(key: string, fallback: T): Promise<T>;
  setSetting<T>(key: string, value: T): Promise<void>;
}

export class KeyRing {
  private readonly memory = new Map<string, string>();
  private readonly remembered = new Set<string>();
  private writes: Promise<void> = Promise.resolve();

  constructor(private readonly store: SettingsStore) {}

  /** Read the remembered keys. Keys typed meanwhile are kept. */
  async load(): Promise<void> {
    const saved = await this.store.getSetting<Record<string, unknown>>(KEYS_SETTING, {});
    for (const [scope, key] of Object.entries(saved)) {
      if (typeof key !== 'string' || !key) continue;
      if (!this.memory.has(scope)) this.memory.set(scope, key);
      this.remembered.add(scope);
    }
  }

  get(scope: string | null): string {
    return scope ? (this.memory.get(scope) ?? '') : '';
  }

  isRemembered(scope: string | null): boolean {
    return scope !== null && this.remembered.has(scope);
  }

  /** Set the key of a scope; `remember` writes it to storage (or removes it from there). */
  set(scope: string, key: string, remember: boolean): Promise<void> {
    if (key) this.memory.set(scope, key);
    else this.memory.delete(scope);
    const wasRemembered = this.remembered.has(scope);
    if (remember && key) this.remembered.add(scope);
    else this.remembered.delete(scope);
    return remember || wasRemembered ? this.persist() : this.writes;
  }

  /** Drop the key from memory and from storage. */
  forget(scope: string): Promise<void> {
    this.memory.delete(scope);
    this.remembered.delete(scope);
    return this.persist();
  }

  private persist(): Promise<void> {
    const saved: Record<string, string> = {};
    for (const scope of this.remembered) {
      const key = this.memory.get(scope);
      if (key) saved[scope] = key;
    }
    // Writes in order, so the last state wins.
    this.writes = this.writes
      .catch(() => {})
      .then(() => this.store.setSetting(KEYS_SETTING, saved));
    return this.writes;
  }
}
