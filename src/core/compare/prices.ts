/**
 * @file A small editable price table for API engines, and the price estimate of a column.
 *
 * The defaults are list prices in US dollars per million tokens as published by OpenAI and
 * Anthropic (checked 2025; `PRICES_CHECKED`). They are estimates: providers change prices, bill
 * cached input less, and count tokens with their own tokenizer, while a column's tokens may be
 * the engine's estimate. The person edits the table; engines that run in the browser cost 0.
 */

export type PricedEngine = 'openai' | 'anthropic';

export interface PriceEntry {
  engine: PricedEngine;
  /** The model id as the engine settings name it: `gpt-4o-mini`, `claude-sonnet-4-5`. */
  model: string;
  /** US dollars per million input (prompt) tokens. */
  inputPerMillion: number;
  /** US dollars per million output (completion) tokens. */
  outputPerMillion: number;
}

export const PRICES_CHECKED = '2025';

export const DEFAULT_PRICES: readonly PriceEntry[] = Object.freeze([
  { engine: 'openai', model: 'gpt-4o-mini', inputPerMillion: 0.15, outputPerMillion: 0.6 },
  { engine: 'openai', model: 'gpt-4o', inputPerMillion: 2.5, outputPerMillion: 10 },
  { engine: 'openai', model: 'gpt-4.1-mini', inputPerMillion: 0.4, outputPerMillion: 1.6 },
  { engine: 'openai', model: 'gpt-4.1', inputPerMillion: 2, outputPerMillion: 8 },
  { engine: 'anthropic', model: 'claude-haiku-4-5', inputPerMillion: 1, outputPerMillion: 5 },
  { engine: 'anthropic', model: 'claude-sonnet-4-5', inputPerMillion: 3, outputPerMillion: 15 },
  { engine: 'anthropic', model: 'claude-opus-4-1', inputPerMillion: 15, outputPerMillion: 75 },
]);

/**
 * The entry for an engine's model: the exact id (case-insensitive), else the same after an
 * OpenRouter-style `vendor/` prefix, else the longest entry the id extends with `-` (a dated
 * snapshot such as `gpt-4o-mini-2024-07-18` takes `gpt-4o-mini`'s price, not `gpt-4o`'s).
 * Null when none fits: the column says the price is unknown rather than guess.
 */
export function findPrice(
  table: readonly PriceEntry[],
  engine: PricedEngine,
  model: string,
): PriceEntry | null {
  const full = model.trim().toLowerCase();
  const ids = [full, full.slice(full.lastIndexOf('/') + 1)];
  const rows = table.filter((p) => p.engine === engine);
  for (const id of ids) {
    const exact = rows.find((p) => p.model.trim().toLowerCase() === id);
    if (exact) return exact;
  }
  let best: PriceEntry | null = null;
  for (const id of ids)
    for (const p of rows) {
      const m = p.model.trim().toLowerCase();
      if (m && id.startsWith(`${m}-`) && (!best || m.length > best.model.trim().length)) best = p;
    }
  return best;
}

export type PriceEstimate =
  /** An API engine whose model is in the table. */
  | { kind: 'priced'; usd: number; entry: PriceEntry }
  /** The model runs in this browser: no money is spent. */
  | { kind: 'local'; usd: 0 }
  /** An API engine whose model is not in the table. */
  | { kind: 'unknown'; model: string };

export function estimatePrice(
  table: readonly PriceEntry[],
  engine: { kind: string; model: string },
  tokens: { tokensIn: number; tokensOut: number },
): PriceEstimate {
  if (engine.kind !== 'openai' && engine.kind !== 'anthropic') return { kind: 'local', usd: 0 };
  const entry = findPrice(table, engine.kind, engine.model);
  if (!entry) return { kind: 'unknown', model: engine.model };
  const usd =
    (tokens.tokensIn * entry.inputPerMillion + tokens.tokensOut * entry.outputPerMillion) / 1e6;
  return { kind: 'priced', usd, entry };
}

/** Dollars for people: cents to four places below a cent, else two decimals. */
export function formatUsd(usd: number): string {
  if (usd === 0) return '$0';
  if (usd < 0.01) return `$${usd.toFixed(4)}`;
  return `$${usd.toFixed(2)}`;
}

/**
 * A stored table, row by row: rows with an unknown engine, an empty model or a price that is not
 * a finite number >= 0 are left out. Anything that is not a list gives the defaults.
 */
export function normalizePriceTable(stored: unknown): PriceEntry[] {
  if (!Array.isArray(stored)) return DEFAULT_PRICES.map((p) => ({ ...p }));
  const out: PriceEntry[] = [];
  for (const row of stored as unknown[]) {
    if (!row || typeof row !== 'object') continue;
    const r = row as Record<string, unknown>;
    const price = (v: unknown) => typeof v === 'number' && Number.isFinite(v) && v >= 0;
    if (
      (r.engine === 'openai' || r.engine === 'anthropic') &&
      typeof r.model === 'string' &&
      r.model.trim() &&
      price(r.inputPerMillion) &&
      price(r.outputPerMillion)
    )
      out.push({
        engine: r.engine,
        model: r.model.trim(),
        inputPerMillion: r.inputPerMillion as number,
        outputPerMillion: r.outputPerMillion as number,
      });
  }
  return out;
}
