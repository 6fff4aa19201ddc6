/** A labelled slider that shows its value: the retrieval controls' one kind of knob. */
export function RangeField({
  label,
  ariaLabel,
  title,
  value,
  min,
  max,
  step,
  digits = 0,
  onChange,
}: {
  label: string;
  ariaLabel: string;
  /** The method's symbol and equation, as a tooltip. */
  title?: string;
  value: number;
  min: number;
  max: number;
  step: number;
  /** Decimals shown next to the label. */
  digits?: number;
  onChange: (value: number) => void;
}) {
  return (
    <label title={title}>
      {label} <output>{digits ? value.toFixed(digits) : value}</output>
      <input
        type="range"
        min={min}
        max={max}
        step={step}
        value={value}
        aria-label={ariaLabel}
        onChange={(e) => onChange(Number(e.target.value))}
      />
    </label>
  );
}
