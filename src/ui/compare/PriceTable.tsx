/**
 * @file The editable price table (src/core/compare/prices.ts): US dollars per million input and
 * output tokens per API model. The defaults are list prices, labelled as estimates; the person
 * edits, adds or removes rows, or goes back to the defaults.
 */
import { useEffect, useRef, useState } from 'react';
import {
  DEFAULT_PRICES,
  normalizePriceTable,
  PRICES_CHECKED,
  type PriceEntry,
} from '../../core/compare';
import type { SettingsStore } from '../../llm/keys';
import { ENGINE_LABELS } from '../../llm/settings';

/** Where the price table is kept in the library's settings. */
export const PRICES_SETTING = 'compare.prices';

/**
 * The price table, read once from the library's settings and saved there on each change (once
 * read); in memory without a store.
 */
export function usePriceTable(
  store: SettingsStore | undefined,
): [PriceEntry[], (next: PriceEntry[]) => void] {
  const [prices, setPrices] = useState<PriceEntry[]>(() => normalizePriceTable(undefined));
  const loaded = useRef(false);
  useEffect(() => {
    if (!store) return;
    let live = true;
    void store
      .getSetting<unknown>(PRICES_SETTING, null)
      .then((stored) => {
        if (live && stored !== null) setPrices(normalizePriceTable(stored));
      })
      .catch((e: Error) => console.warn('The price table could not be read:', e.message))
      .finally(() => {
        loaded.current = true;
      });
    return () => {
      live = false;
    };
  }, [store]);
  const change = (next: PriceEntry[]) => {
    setPrices(next);
    if (store && loaded.current)
      void store.setSetting(PRICES_SETTING, next).catch((e: Error) => {
        console.warn('The price table could not be saved:', e.message);
      });
  };
  return [prices, change];
}

function PriceCell({
  label,
  value,
  onChange,
}: {
  label: string;
  value: number;
  onChange: (v: number) => void;
}) {
  return (
    <td>
      <input
        type="number"
        min={0}
        step="any"
        aria-label={label}
        value={value}
        onChange={(e) => onChange(e.target.valueAsNumber)}
      />
    </td>
  );
}

export function PriceTable({
  prices,
  onChange,
  disabled,
}: {
  prices: readonly PriceEntry[];
  onChange: (next: PriceEntry[]) => void;
  disabled: boolean;
}) {
  const set = (k: number, patch: Partial<PriceEntry>) =>
    onChange(prices.map((p, i) => (i === k ? { ...p, ...patch } : p)));
  const price = (k: number, field: 'inputPerMillion' | 'outputPerMillion', v: number) => {
    if (Number.isFinite(v) && v >= 0) set(k, { [field]: v });
  };
  return (
    <details className="compare__prices" data-testid="price-table">
      <summary>Prices of API models (estimates, editable)</summary>
      <p className="stats">
        List prices in US dollars per million tokens, as published in {PRICES_CHECKED}. They are
        estimates: check your provider&apos;s current prices, cached input is billed less, and token
        counts are the engine&apos;s estimate when the API does not report them. Models in this
        browser cost nothing.
      </p>
      <fieldset disabled={disabled} className="compare__price-rows">
        <legend className="visually-hidden">Price table</legend>
        <div className="compare__price-scroll">
          <table>
            <thead>
              <tr>
                <th scope="col">Engine</th>
                <th scope="col">Model</th>
                <th scope="col">$ / 1M in</th>
                <th scope="col">$ / 1M out</th>
                <th scope="col">
                  <span className="visually-hidden">Remove</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {prices.map((p, k) => (
                <tr key={k} data-testid="price-row">
                  <td>
                    <select
                      aria-label={`Engine of price row ${k + 1}`}
                      value={p.engine}
                      onChange={(e) => set(k, { engine: e.target.value as PriceEntry['engine'] })}
                    >
                      <option value="openai">{ENGINE_LABELS.openai}</option>
                      <option value="anthropic">{ENGINE_LABELS.anthropic}</option>
                    </select>
                  </td>
                  <td>
                    <input
                      aria-label={`Model of price row ${k + 1}`}
                      value={p.model}
                      onChange={(e) => set(k, { model: e.target.value })}
                    />
                  </td>
                  <PriceCell
                    label={`Dollars per million input tokens, row ${k + 1}`}
                    value={p.inputPerMillion}
                    onChange={(v) => price(k, 'inputPerMillion', v)}
                  />
                  <PriceCell
                    label={`Dollars per million output tokens, row ${k + 1}`}
                    value={p.outputPerMillion}
                    onChange={(v) => price(k, 'outputPerMillion', v)}
                  />
                  <td>
                    <button
                      type="button"
                      aria-label={`Remove price row ${k + 1}`}
                      onClick={() => onChange(prices.filter((_, i) => i !== k))}
                    >
                      Remove
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        <div className="answer__actions">
          <button
            type="button"
            onClick={() =>
              onChange([
                ...prices,
                { engine: 'openai', model: '', inputPerMillion: 0, outputPerMillion: 0 },
              ])
            }
          >
            Add a model
          </button>
          <button type="button" onClick={() => onChange(DEFAULT_PRICES.map((p) => ({ ...p })))}>
            Back to the defaults
          </button>
        </div>
      </fieldset>
    </details>
  );
}
