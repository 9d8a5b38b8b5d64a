// A drift report as the operator reads it: one summary line per bot, then each difference (time, symbol,
// candle, what, cause, why); the alarm's one-line sentence for notifications, logs and the dashboard.
import { formatTable } from '../market/text-table.js';
import { US_EASTERN } from '../market/us-calendar.js';
import { formatZoned } from '../market/zoned-time.js';
import type { DriftDifference, DriftReport } from './compare.js';

const when = (ts: number): string => formatZoned(ts, US_EASTERN);

/** The counts of a report in one line. */
export function driftSummary(r: DriftReport): string {
  const causes = Object.entries(r.byCause)
    .map(([c, n]) => `${c} ${n}`)
    .join(', ');
  return (
    `bot ${r.bot}: ${when(r.from)} to ${when(r.to)}; candles: ${r.candles.venue} at the venue, ${r.candles.decided} decided; ` +
    `intents: ${r.intents.equal} of ${r.intents.replay} of the replay equal live (${r.intents.live} live); ` +
    `${r.differences.length} differences${causes === '' ? '' : ` (${causes})`}; ${r.unexplained} unexplained`
  );
}

/** The alarm's sentence for an unexplained difference: the bot, the candle, what differs. */
export function driftAlarm(bot: string, d: DriftDifference): string {
  const candle = d.candle === undefined ? '' : ` candle ${new Date(d.candle).toISOString()}`;
  return `drift: bot ${bot} ${d.symbol}${candle}: ${d.kind}, cause unexplained: ${d.detail}`;
}

/** The report as text: the summary, then a table of the differences (none: a sentence saying so). */
export function formatDriftReport(r: DriftReport): string {
  const head = driftSummary(r);
  if (r.differences.length === 0) return `${head}\nlive equals the replay of the venue's candles`;
  const table = formatTable(
    ['time (ET)', 'symbol', 'candle (ET)', 'what', 'cause', 'why'].map((header) => ({ header })),
    r.differences.map((d) => [
      when(d.at),
      d.symbol,
      d.candle === undefined ? '—' : when(d.candle),
      d.kind,
      d.cause,
      d.follows === undefined ? d.detail : `${d.detail}; follows ${d.follows}`,
    ]),
  );
  return `${head}\n${table}`;
}
