/**
 * @file What a pipeline run will cost, said before anything is sent: calls, prompt tokens, and
 * the time on the chosen engine from its measured speed (engine-speed.ts) or the price for an
 * API (the price table of Compare). The figures come from the evaluation page's own estimator,
 * a dry run with a stand-in model (core/eval/answer-run.ts `dryRunCost`). Above a threshold the
 * person sets (calls), the run waits for a confirmation. Used by the pipelines panel and Compare.
 */
import { useCallback, useRef, useState } from 'react';
import {
  DEFAULT_PRICES,
  estimatePrice,
  formatUsd,
  type PriceEntry,
} from '../../core/compare/prices';
import { timeOnEngineMs, type CostEstimate } from '../../core/eval/answer-run';
import { speedKey, speedOf } from './engine-speed';

/** One run (a pipeline on an engine) in the estimate. */
export interface EstimateRow {
  label: string;
  cost: CostEstimate;
  /**
   * Its rounds depend on the model's answers (SEGMENT+, QRMeM): the dry run's count is a guess in
   * either direction (measured: QRMeM estimated at 401 calls made 183 on a scripted server whose
   * judge answered at once).
   */
  floor: boolean;
  engine: { kind: string; model: string; label: string; local: boolean };
}

const THRESHOLD_KEY = 'fragrel-lens:confirm-over-calls';
/** Runs of more calls than this ask first, until the person sets another number. */
export const DEFAULT_CONFIRM_CALLS = 100;

function storedThreshold(): number {
  const raw = Number(globalThis.localStorage?.getItem(THRESHOLD_KEY));
  return Number.isInteger(raw) && raw >= 0 && globalThis.localStorage?.getItem(THRESHOLD_KEY)
    ? raw
    : DEFAULT_CONFIRM_CALLS;
}

export interface CostGate {
  rows: EstimateRow[] | null;
  estimating: boolean;
  /** A run waiting for the person's yes. */
  pending: boolean;
  error: string | null;
  threshold: number;
  setThreshold: (calls: number) => void;
  /**
   * Estimate (`estimate` must send nothing), show it, and run `run` now when the total is within
   * the threshold, else once confirmed.
   */
  request: (estimate: () => Promise<EstimateRow[]>, run: () => void) => Promise<void>;
  confirm: () => void;
  cancel: () => void;
}

export function useCostGate(): CostGate {
  const [rows, setRows] = useState<EstimateRow[] | null>(null);
  const [estimating, setEstimating] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [threshold, setThresholdState] = useState(storedThreshold);
  const [pending, setPending] = useState(false);
  const waiting = useRef<(() => void) | null>(null);
  const setThreshold = useCallback((calls: number) => {
    setThresholdState(calls);
    try {
      globalThis.localStorage?.setItem(THRESHOLD_KEY, String(calls));
    } catch {
      // Kept for this page only.
    }
  }, []);
  const request = useCallback(
    async (estimate: () => Promise<EstimateRow[]>, run: () => void) => {
      waiting.current = null;
      setPending(false);
      setError(null);
      setEstimating(true);
      let found: EstimateRow[];
      try {
        found = await estimate();
      } catch (e) {
        setEstimating(false);
        setRows(null);
        setError(`The cost could not be estimated, so nothing was run: ${(e as Error).message}`);
        return;
      }
      setEstimating(false);
      setRows(found);
      const calls = found.reduce((sum, r) => sum + r.cost.calls, 0);
      if (calls > threshold) {
        waiting.current = run;
        setPending(true);
      } else {
        run();
      }
    },
    [threshold],
  );
  const confirm = useCallback(() => {
    const run = waiting.current;
    waiting.current = null;
    setPending(false);
    run?.();
  }, []);
  const cancel = useCallback(() => {
    waiting.current = null;
    setPending(false);
  }, []);
  return { rows, estimating, pending, error, threshold, setThreshold, request, confirm, cancel };
}

const n = (x: number) => Math.round(x).toLocaleString('en');

function duration(ms: number): string {
  const s = ms / 1000;
  if (s < 90) return `${Math.max(1, Math.round(s))} s`;
  if (s < 90 * 60) return `${Math.round(s / 60)} min`;
  return `${(s / 3600).toFixed(1)} h`;
}

/** Time or price of one row, in words. */
function onEngine(row: EstimateRow, prices: readonly PriceEntry[]): string {
  if (!row.engine.local) {
    const price = estimatePrice(prices, row.engine, row.cost);
    if (price.kind === 'priced') return `about ${formatUsd(price.usd)} at the price table's rates`;
    if (price.kind === 'unknown')
      return `price unknown (${row.engine.model} is not in the price table)`;
  }
  const speed = speedOf(speedKey(row.engine.kind, row.engine.model));
  if (!speed) return 'time not known yet: this engine’s speed is measured on its first run';
  return `about ${duration(timeOnEngineMs(row.cost, speed))} at its measured ${speed.promptTokensPerSecond.toFixed(0)} prompt tokens/s and ${speed.tokensPerSecond.toFixed(1)} tokens/s`;
}

export function RunEstimate({
  gate,
  prices = DEFAULT_PRICES,
  runLabel,
}: {
  gate: CostGate;
  prices?: readonly PriceEntry[];
  /** The button's words for the confirmation: "Run QRMeM". */
  runLabel: string;
}) {
  const { rows, estimating, pending, error, threshold } = gate;
  const total = rows?.reduce((sum, r) => sum + r.cost.calls, 0) ?? 0;
  return (
    <div className="run-estimate" data-testid="run-estimate" data-pending={pending}>
      <label className="run-estimate__threshold">
        Ask before runs of more than{' '}
        <input
          type="number"
          min={0}
          step={1}
          value={threshold}
          onChange={(e) => {
            const v = Math.floor(Number(e.target.value));
            if (Number.isFinite(v) && v >= 0) gate.setThreshold(v);
          }}
          aria-label="Ask before runs of more than this many calls"
        />{' '}
        calls
      </label>
      {estimating && <p className="stats">Estimating the cost (a dry run; nothing is sent)…</p>}
      {error && (
        <p className="answer__error" role="alert">
          {error}
        </p>
      )}
      {rows && !estimating && (
        <ul className="run-estimate__rows" data-testid="run-estimate-rows" data-calls={total}>
          {rows.map((r) => (
            <li key={r.label} data-calls={r.cost.calls} data-tokens-in={r.cost.tokensIn}>
              <strong>{r.label}</strong> on {r.engine.label}: {r.floor ? 'about ' : ''}
              {n(r.cost.calls)} call{r.cost.calls === 1 ? '' : 's'}, {n(r.cost.tokensIn)} prompt
              tokens and {n(r.cost.tokensOut)} written (counted as words by a dry run
              {r.floor
                ? '; its rounds depend on the model’s answers, so the real run may differ'
                : ''}
              ); {onEngine(r, prices)}.
            </li>
          ))}
        </ul>
      )}
      {pending && (
        <div
          className="notice"
          role="alertdialog"
          aria-label="Confirm the run"
          data-testid="run-confirm"
        >
          <p>
            This run is estimated at {n(total)} calls, more than the {n(threshold)} you set. Nothing
            has been sent yet.
          </p>
          <button type="button" className="primary" onClick={gate.confirm}>
            {runLabel} anyway
          </button>{' '}
          <button type="button" onClick={gate.cancel}>
            Cancel
          </button>
        </div>
      )}
    </div>
  );
}
