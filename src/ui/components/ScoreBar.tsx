/**
 * A stacked bar that reads as the equation it shows (Eq. 10):
 * independent score + alpha x environment score = final score.
 */
export interface ScoreBarProps {
  independent: number;
  environment: number;
  alpha: number;
  /** Final score that fills the whole width: the largest final score on screen. */
  scale: number;
}

export function ScoreBar({ independent, environment, alpha, scale }: ScoreBarProps) {
  const lent = alpha * environment;
  const final = independent + lent;
  const pct = (v: number) => `${scale > 0 ? Math.max(0, (v / scale) * 100) : 0}%`;
  return (
    <div className="score-bar">
      <div
        className="score-bar__track"
        role="img"
        aria-label={`independent ${fmt(independent)} plus ${fmt(alpha)} times environment ${fmt(environment)} equals final ${fmt(final)}`}
      >
        <span className="score-bar__ind" style={{ width: pct(independent) }} />
        <span className="score-bar__env" style={{ width: pct(lent) }} />
      </div>
      {/* The readable scale: relative to the best passage on screen. The raw scores follow; a
          final score can pass 1 because the neighbours' relevance is added to the passage's own. */}
      <div
        className="score-bar__match"
        title="Relative to the best passage. Raw scores: own relevance + α × neighbours' relevance = final (it can exceed 1)."
      >
        {scale > 0 ? `${Math.round(Math.max(0, final / scale) * 100)}% of the best match` : ''}
      </div>
      <div className="score-bar__eq" aria-hidden="true">
        <span className="swatch swatch--ind" /> {fmt(independent)} + {fmt(alpha)}×
        <span className="swatch swatch--env" /> {fmt(environment)} = <strong>{fmt(final)}</strong>
      </div>
    </div>
  );
}

export function fmt(v: number): string {
  return v.toFixed(3);
}
