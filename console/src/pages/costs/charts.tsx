/**
 * The Costs section's charts, drawn with plain SVG: bars per day (vertical) and per agent
 * (horizontal). Each chart is one image for assistive technology (role="img", named by its <title>
 * and described by a <desc> with the highest figure); the page gives the same figures as a table.
 * Every bar has its own <title> (a tooltip on hover) and `data-key` naming its day or agent.
 */
import { useId } from 'react';

export interface Bar {
  /** The day (`YYYY-MM-DD`) or agent the bar stands for. */
  key: string;
  /** What is written under or beside it. */
  label: string;
  value: number;
  /** The bar's tooltip: its figures in words. */
  detail: string;
}

interface ChartProps {
  title: string;
  bars: Bar[];
  /** Formats a value for the axis and the description. */
  format: (value: number) => string;
}

/** A round number at or above `max` (1, 2, 2.5 or 5 times a power of ten), so the axis reads well. */
function niceMax(max: number): number {
  if (max <= 0) return 1;
  const power = 10 ** Math.floor(Math.log10(max));
  const step = [1, 2, 2.5, 5, 10].find((s) => s * power >= max) ?? 10;
  return step * power;
}

function describe(bars: Bar[], format: (value: number) => string): string {
  const top = bars.reduce<Bar | undefined>((best, bar) => (best === undefined || bar.value > best.value ? bar : best), undefined);
  if (!top || top.value === 0) return 'Nothing in this range.';
  return `${bars.length} bars; the highest is ${top.label} with ${format(top.value)}.`;
}

const DAY_WIDTH = 760;
const DAY_HEIGHT = 240;
const MARGIN = { top: 12, right: 12, bottom: 30, left: 64 };

/** Vertical bars, one per day, oldest on the left. */
export function DayBarChart({ title, bars, format }: ChartProps) {
  const titleId = useId();
  const descId = useId();
  const plotWidth = DAY_WIDTH - MARGIN.left - MARGIN.right;
  const plotHeight = DAY_HEIGHT - MARGIN.top - MARGIN.bottom;
  const max = niceMax(Math.max(0, ...bars.map((b) => b.value)));
  const slot = plotWidth / Math.max(bars.length, 1);
  const barWidth = Math.max(1, slot * 0.72);
  const y = (value: number) => MARGIN.top + plotHeight - (value / max) * plotHeight;
  // Up to eight day labels, evenly spread, the last day always among them.
  const every = Math.max(1, Math.ceil(bars.length / 8));
  const labelled = new Set(bars.map((_, i) => i).filter((i) => (bars.length - 1 - i) % every === 0));
  return (
    <svg className="chart" viewBox={`0 0 ${DAY_WIDTH} ${DAY_HEIGHT}`} role="img" aria-labelledby={`${titleId} ${descId}`}>
      <title id={titleId}>{title}</title>
      <desc id={descId}>{describe(bars, format)}</desc>
      {[0, 0.5, 1].map((fraction) => (
        <g key={fraction} className="chart-grid">
          <line x1={MARGIN.left} x2={DAY_WIDTH - MARGIN.right} y1={y(max * fraction)} y2={y(max * fraction)} />
          <text x={MARGIN.left - 6} y={y(max * fraction)} dy="0.32em" textAnchor="end">
            {format(max * fraction)}
          </text>
        </g>
      ))}
      {bars.map((bar, i) => {
        const x = MARGIN.left + i * slot + (slot - barWidth) / 2;
        const top = bar.value > 0 ? Math.min(y(bar.value), MARGIN.top + plotHeight - 1) : MARGIN.top + plotHeight;
        return (
          <g key={bar.key}>
            {bar.value > 0 && (
              <rect className="chart-bar" data-key={bar.key} x={x} y={top} width={barWidth} height={MARGIN.top + plotHeight - top}>
                <title>{bar.detail}</title>
              </rect>
            )}
            {labelled.has(i) && (
              <text className="chart-label" x={x + barWidth / 2} y={DAY_HEIGHT - MARGIN.bottom + 16} textAnchor="middle">
                {bar.label}
              </text>
            )}
          </g>
        );
      })}
      <line className="chart-axis" x1={MARGIN.left} x2={DAY_WIDTH - MARGIN.right} y1={y(0)} y2={y(0)} />
    </svg>
  );
}

const ROW = 30;
const LABEL_WIDTH = 200;
const VALUE_WIDTH = 110;
const WIDTH = 760;

const truncate = (text: string, length: number) => (text.length > length ? `${text.slice(0, length - 1)}…` : text);

/** Horizontal bars, one per agent, largest first (the API's order). */
export function AgentBarChart({ title, bars, format }: ChartProps) {
  const titleId = useId();
  const descId = useId();
  const height = Math.max(1, bars.length) * ROW + 8;
  const max = Math.max(1, ...bars.map((b) => b.value));
  const plotWidth = WIDTH - LABEL_WIDTH - VALUE_WIDTH;
  return (
    <svg className="chart" viewBox={`0 0 ${WIDTH} ${height}`} role="img" aria-labelledby={`${titleId} ${descId}`}>
      <title id={titleId}>{title}</title>
      <desc id={descId}>{describe(bars, format)}</desc>
      {bars.map((bar, i) => {
        const y = 4 + i * ROW;
        const width = bar.value > 0 ? Math.max(2, (bar.value / max) * plotWidth) : 0;
        return (
          <g key={bar.key}>
            <text className="chart-label" x={LABEL_WIDTH - 8} y={y + ROW / 2} dy="0.32em" textAnchor="end">
              {truncate(bar.label, 28)}
            </text>
            <rect className="chart-bar" data-key={bar.key} x={LABEL_WIDTH} y={y + 5} width={width} height={ROW - 10}>
              <title>{bar.detail}</title>
            </rect>
            <text className="chart-value" x={LABEL_WIDTH + width + 6} y={y + ROW / 2} dy="0.32em">
              {format(bar.value)}
            </text>
          </g>
        );
      })}
      <line className="chart-axis" x1={LABEL_WIDTH} x2={LABEL_WIDTH} y1={0} y2={height} />
    </svg>
  );
}
