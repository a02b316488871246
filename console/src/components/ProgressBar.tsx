/** Progress of a long operation: a native <progress> with its label and the figures as text. */
interface ProgressBarProps {
  label: string;
  /** Done so far; undefined: indeterminate. */
  value?: number;
  max?: number;
  /** The figures as words ("3 of 10 files"); default: a percentage. */
  text?: string;
}

export function ProgressBar({ label, value, max = 1, text }: ProgressBarProps) {
  const percent = value === undefined ? undefined : Math.round((Math.min(value, max) / max) * 100);
  return (
    <div className="progress">
      <div className="progress-label">
        <span>{label}</span>
        <span className="muted">{text ?? (percent === undefined ? 'working…' : `${percent}%`)}</span>
      </div>
      <progress aria-label={label} value={value} max={max} />
    </div>
  );
}
