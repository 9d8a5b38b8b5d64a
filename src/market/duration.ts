// A span of time for a sentence an operator reads: "2 h 48 min", not "10084500 ms".

const UNITS: readonly (readonly [string, number])[] = [
  ['y', 31_557_600_000], // 365.25 days
  ['d', 86_400_000],
  ['h', 3_600_000],
  ['min', 60_000],
  ['s', 1000],
];

/**
 * `ms` in its two largest units, rounded down ("19 y 253 d", "2 h 48 min", "3 min 5 s", "42 s"); under a second in
 * milliseconds ("850 ms"). A negative span is written with a minus sign.
 */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms)) return String(ms);
  if (ms < 0) return `-${formatDuration(-ms)}`;
  if (ms < 1000) return `${Math.floor(ms)} ms`;
  const i = UNITS.findIndex(([, size]) => ms >= size);
  const [unit, size] = UNITS[i] as readonly [string, number];
  const whole = Math.floor(ms / size);
  const next = UNITS[i + 1];
  const rest = next === undefined ? 0 : Math.floor((ms - whole * size) / next[1]);
  return rest > 0 && next !== undefined ? `${whole} ${unit} ${rest} ${next[0]}` : `${whole} ${unit}`;
}
