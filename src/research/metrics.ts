// Performance metrics of a backtest, from the equity marked at every time step's close (the curve) and the
// round trips. Definitions (also in src/research/README.md):
// - max drawdown = largest fall from a running peak of the curve (the capital at the first open included), as a
//   fraction; its duration = longest time from a peak to the recovery of that peak (or to the end);
// - daily returns: the curve's last point of each calendar day in the venue's zone (a point at 00:00 closes the
//   day before), each over the previous day's (the first over the capital). Sharpe = mean/stdev x sqrt(days per
//   year), Sortino uses the downside deviation (root mean square of the negative daily returns over all days),
//   zero risk-free rate; days per year = the days counted over the run's span in years (about 252 for a stock
//   that trades on weekdays, 365 for a coin that trades every day);
// - the run's span: the first candle's open to the last candle's close; CAGR = (final/initial)^(1/years) - 1
//   over it (a year is 365.25 days); Calmar = CAGR / max drawdown;
// - win rate, profit factor (gross profit / gross loss) and expectancy (mean PnL per trade) use the round
//   trips; exposure = share of the time steps (candles) at whose close a position was open;
// - benchmark (buy and hold): excess return, beta = cov/var of the daily returns, Jensen's alpha annualised;
//   monthly returns by calendar month of the exchange's zone. Money stays Decimal (strings in the answer).
import { Decimal, formatAmount, formatPercent } from '../market/decimal.js';
import type { BacktestResult, BacktestTrade, EquityCurvePoint, TimeInMarket } from '../backtest/result.js';
import { wallClockIn } from '../market/sessions.js';
import { formatDuration } from '../market/duration.js';
import { counted } from '../market/spelling.js';
import { INTERVAL_MS, type CandleInterval } from '../api/index.js';
import { rulesText } from '../strategy/exits.js';
import { EquityCurve, type EquityPoints } from '../backtest/equity-curve.js';
import { hasShorts, sideSplit } from './sides.js';

/** The run against buying the instrument at the first open and holding it (fees not charged). */
export interface BenchmarkMetrics {
  readonly totalReturn: number;
  readonly cagr: number;
  readonly maxDrawdown: number;
  /** Strategy total return minus the benchmark's. */
  readonly excessReturn: number;
  /** cov(strategy, benchmark) / var(benchmark) of the daily returns. */
  readonly beta: number;
  /** Jensen's alpha, annualised: (mean strategy return - beta x mean benchmark return) x periods per year. */
  readonly alpha: number;
}

/** One calendar month (in the exchange's time zone): its return from the previous month's last sample. */
export interface MonthlyReturn {
  /** YYYY-MM */
  readonly month: string;
  readonly return: number;
}

export interface Metrics {
  readonly totalReturn: number;
  /** Over the run's span: the first candle's open to the last candle's close (`spanMs`). */
  readonly cagr: number;
  /** Of the daily returns (the curve's last point of each day in the venue's zone), annualised by `daysPerYear`. */
  readonly sharpe: number;
  /** Of the daily returns, as `sharpe`, over their downside deviation. */
  readonly sortino: number;
  readonly calmar: number;
  /** From the equity at every candle's close, the capital at the first open included. */
  readonly maxDrawdown: number;
  readonly maxDrawdownDurationMs: number;
  /** The run's span, ms: the first candle's open to the last candle's close. */
  readonly spanMs: number;
  /** Daily returns per year (days counted over the span): what Sharpe, Sortino and alpha are annualised by. */
  readonly daysPerYear: number;
  readonly winRate: number;
  readonly profitFactor: number;
  /** Mean PnL per round trip, quote coin (decimal string). */
  readonly expectancy: string;
  readonly exposure: number;
  readonly trades: number;
  /** Quote coin, decimal strings. */
  readonly fees: string;
  readonly finalEquity: string;
  readonly monthly: readonly MonthlyReturn[];
  readonly benchmark?: BenchmarkMetrics | undefined;
}

export interface MetricsOptions {
  /** When the run started (its first candle's open); default: the curve's first point. */
  readonly start?: number | undefined;
  /** The run's span, ms (first candle's open to last candle's close); default: the curve's first to last point. */
  readonly spanMs?: number | undefined;
  /** The exact final equity (decimal string); default: the last equity sample. */
  readonly finalEquity?: string | undefined;
  /** The benchmark's equity at each equity sample (same length as the curve). */
  readonly benchmark?: readonly number[] | undefined;
  /** IANA zone of the daily returns and the monthly table (default UTC). */
  readonly timeZone?: string | undefined;
}

const YEAR_MS = 365.25 * 86_400_000;

const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);

/** Simple returns of consecutive values. */
function simpleReturns(values: readonly number[]): number[] {
  const out: number[] = [];
  for (let i = 1; i < values.length; i++) out.push((values[i] as number) / (values[i - 1] as number) - 1);
  return out;
}

/** Max drawdown of a curve, and its duration; `start` is a point before the curve (the capital at the first open). */
export function drawdown(
  equity: EquityPoints,
  start?: EquityCurvePoint,
): { max: number; durationMs: number } {
  const c = EquityCurve.of(equity);
  const ts = c.times();
  const eq = c.equities();
  let peak = -Infinity;
  let peakTs = 0;
  if (start !== undefined) {
    peak = start.equity;
    peakTs = start.ts;
  }
  let max = 0;
  let longest = 0;
  for (let i = 0; i < eq.length; i++) {
    const e = eq[i] as number;
    if (e >= peak) {
      if (peak > -Infinity) longest = Math.max(longest, (ts[i] as number) - peakTs);
      peak = e;
      peakTs = ts[i] as number;
    } else {
      max = Math.max(max, (peak - e) / peak);
    }
  }
  const last = eq.length - 1;
  if (last >= 0 && (eq[last] as number) < peak) longest = Math.max(longest, (ts[last] as number) - peakTs);
  return { max, durationMs: max === 0 ? 0 : longest };
}

/** `drawdown(...).max` of bare values after a starting one: no point object per value (a benchmark of 1M closes). */
function maxDrawdownOf(values: readonly number[], start: number): number {
  let peak = start;
  let max = 0;
  for (let i = 0; i < values.length; i++) {
    const v = values[i] as number;
    if (v >= peak) peak = v;
    else max = Math.max(max, (peak - v) / peak);
  }
  return max;
}

/** YYYY-MM-DD of the day a point at `ts` closes, in a time zone (a point at 00:00 closes the day before). */
export function dayOf(ts: number, timeZone = 'UTC'): string {
  return new Date(wallClockIn(ts - 1, timeZone)).toISOString().slice(0, 10);
}

/**
 * The calendar day (YYYY-MM-DD, `chars` 10) or month (YYYY-MM, 7) of ascending instants in a zone. The zone is
 * asked again only when an instant leaves the wall-clock day of the last one asked: a Date and a string per
 * point were most of a 1M-candle run's metrics. The day's end is where the wall clock turns the day at the
 * offset of the instant asked, kept only when the zone agrees there (else that instant alone), so a day with
 * an offset change is asked point by point and every answer is the zone's own.
 */
class CalendarKeys {
  private lo = Infinity;
  private hi = -Infinity;
  private key = '';
  constructor(
    private readonly timeZone: string,
    private readonly chars: 7 | 10,
  ) {}

  of(ms: number): string {
    if (ms >= this.lo && ms < this.hi) return this.key;
    const wall = wallClockIn(ms, this.timeZone);
    this.key = new Date(wall).toISOString().slice(0, this.chars);
    const nextDay = wall - (((wall % 86_400_000) + 86_400_000) % 86_400_000) + 86_400_000;
    const end = ms - (((ms % 1000) + 1000) % 1000) + (nextDay - wall);
    const agrees =
      wallClockIn(end, this.timeZone) === nextDay && wallClockIn(end - 1, this.timeZone) === nextDay - 1000;
    this.lo = ms;
    this.hi = agrees ? end : ms + 1;
    return this.key;
  }
}

/** The index of each calendar day's last point of the curve, in the venue's zone. */
export function dailyIndices(equity: EquityPoints, timeZone = 'UTC'): number[] {
  const ts = EquityCurve.of(equity).times();
  const out: number[] = [];
  const days = new CalendarKeys(timeZone, 10);
  let day: string | undefined;
  for (let i = 0; i < ts.length; i++) {
    const d = days.of((ts[i] as number) - 1);
    if (day !== undefined && d !== day) out.push(i - 1);
    day = d;
  }
  if (ts.length > 0) out.push(ts.length - 1);
  return out;
}

/** YYYY-MM of an instant in a time zone. */
export function monthOf(ts: number, timeZone = 'UTC'): string {
  return new Date(wallClockIn(ts, timeZone)).toISOString().slice(0, 7);
}

/**
 * Monthly returns: each month's last sample over the previous month's last (the first over `initial`). A
 * sample is the equity at its candle's close, so one at a month's first instant (a daily candle on the UTC
 * grid closes at 00:00) closes the month before and counts there.
 */
export function monthlyReturns(initial: number, equity: EquityPoints, timeZone = 'UTC'): MonthlyReturn[] {
  const c = EquityCurve.of(equity);
  const ts = c.times();
  const eq = c.equities();
  const out: MonthlyReturn[] = [];
  let prev = initial;
  let month: string | undefined;
  let last = initial;
  const months = new CalendarKeys(timeZone, 7);
  for (let i = 0; i < ts.length; i++) {
    const m = months.of((ts[i] as number) - 1);
    if (month !== undefined && m !== month) {
      out.push({ month, return: last / prev - 1 });
      prev = last;
    }
    month = m;
    last = eq[i] as number;
  }
  if (month !== undefined) out.push({ month, return: last / prev - 1 });
  return out;
}

function benchmarkMetrics(
  initial: number,
  curve: EquityCurve,
  bench: readonly number[],
  days: readonly number[],
  periodsPerYear: number,
  spanYears: number,
  totalReturn: number,
  start: EquityCurvePoint,
): BenchmarkMetrics {
  const rs = simpleReturns([initial, ...days.map((i) => curve.equity(i))]);
  const rb = simpleReturns([initial, ...days.map((i) => bench[i] as number)]);
  const mb = mean(rb);
  const ms = mean(rs);
  let cov = 0;
  let varB = 0;
  for (let i = 0; i < rb.length; i++) {
    cov += ((rs[i] as number) - ms) * ((rb[i] as number) - mb);
    varB += ((rb[i] as number) - mb) ** 2;
  }
  const beta = varB > 0 ? cov / varB : 0;
  const final = bench[bench.length - 1] ?? initial;
  const bTotal = final / initial - 1;
  return {
    totalReturn: bTotal,
    cagr: spanYears > 0 && final > 0 ? (final / initial) ** (1 / spanYears) - 1 : 0,
    maxDrawdown: maxDrawdownOf(bench, start.equity),
    excessReturn: totalReturn - bTotal,
    beta,
    alpha: (ms - beta * mb) * periodsPerYear,
  };
}

/**
 * Metrics of an equity curve and its round trips. `capital` and `fees` are decimal strings; money in the
 * answer stays decimal strings, ratios are numbers.
 */
export function computeMetrics(
  capital: string,
  points: EquityPoints,
  trades: readonly BacktestTrade[],
  fees: string,
  inMarket: TimeInMarket,
  o: MetricsOptions = {},
): Metrics {
  const initial = Number(capital);
  const equity = EquityCurve.of(points);
  const curve = equity.length > 0 ? equity : EquityCurve.of([{ ts: o.start ?? 0, equity: initial }]);
  const first = curve.at(0);
  const last = curve.at(curve.length - 1);
  const final = last.equity;
  const start: EquityCurvePoint = { ts: o.start ?? first.ts, equity: initial };
  const spanMs = o.spanMs ?? last.ts - first.ts;
  const spanYears = spanMs / YEAR_MS;
  // Sharpe and Sortino are defined on daily returns: the curve's last point of each day on the venue's
  // calendar. Days per year are counted: a stock's weekdays are about 252 a year, not 365.
  const days = dailyIndices(curve, o.timeZone);
  const returns = simpleReturns([initial, ...days.map((i) => curve.equity(i))]);
  // Over the run's span every day's return counts; over the curve's own span (no spanMs) the first point's
  // day is its start, so the days after it.
  const counted = o.spanMs === undefined ? returns.length - 1 : returns.length;
  const periodsPerYear = spanYears > 0 ? counted / spanYears : 252;
  const mu = mean(returns);
  const sd = Math.sqrt(returns.reduce((a, r) => a + (r - mu) ** 2, 0) / Math.max(1, returns.length - 1));
  const downside = Math.sqrt(
    returns.reduce((a, r) => a + Math.min(0, r) ** 2, 0) / Math.max(1, returns.length),
  );
  const totalReturn = final / initial - 1;
  const cagr = spanYears > 0 && final > 0 ? (final / initial) ** (1 / spanYears) - 1 : 0;
  const dd = drawdown(curve, start);
  // Trade money in Decimal; the ratios from it are numbers.
  const pnls = trades.map((t) => new Decimal(t.pnl));
  const wins = pnls.filter((p) => p.gt(0));
  const grossProfit = wins.reduce((a, b) => a.plus(b), new Decimal(0));
  const grossLoss = pnls.filter((p) => p.lt(0)).reduce((a, b) => a.minus(b), new Decimal(0));
  const net = pnls.reduce((a, b) => a.plus(b), new Decimal(0));
  return {
    totalReturn,
    cagr,
    sharpe: sd > 0 ? (mu / sd) * Math.sqrt(periodsPerYear) : 0,
    sortino: downside > 0 ? (mu / downside) * Math.sqrt(periodsPerYear) : 0,
    calmar: dd.max > 0 ? cagr / dd.max : 0,
    maxDrawdown: dd.max,
    maxDrawdownDurationMs: dd.durationMs,
    spanMs,
    daysPerYear: periodsPerYear,
    winRate: trades.length > 0 ? wins.length / trades.length : 0,
    profitFactor: grossLoss.gt(0) ? grossProfit.div(grossLoss).toNumber() : grossProfit.gt(0) ? Infinity : 0,
    // Eight places: a mean of money needs no more than the venue's finest precision.
    expectancy: trades.length > 0 ? net.div(trades.length).toDecimalPlaces(8).toFixed() : '0',
    exposure: inMarket.steps > 0 ? inMarket.held / inMarket.steps : 0,
    trades: trades.length,
    fees: new Decimal(fees).toFixed(),
    finalEquity: o.finalEquity ?? new Decimal(final).toFixed(),
    monthly: equity.length > 0 ? monthlyReturns(initial, equity, o.timeZone) : [],
    ...(o.benchmark !== undefined && o.benchmark.length === equity.length && equity.length > 0
      ? {
          benchmark: benchmarkMetrics(
            initial,
            equity,
            o.benchmark,
            days,
            periodsPerYear,
            spanYears,
            totalReturn,
            start,
          ),
        }
      : {}),
  };
}

/** The run's span: its first candle's open to its last candle's close. */
export const runSpanMs = (meta: BacktestResult['meta']): number =>
  meta.to + (INTERVAL_MS[meta.interval as CandleInterval] ?? 0) - meta.from;

export const metricsOf = (r: BacktestResult, o: Omit<MetricsOptions, 'finalEquity'> = {}): Metrics =>
  computeMetrics(r.meta.capital, r.equity, r.trades, r.fees, r.inMarket, {
    // A run with no candle has no span (its from and to are not numbers): the figures are those of no curve.
    ...(r.meta.candles > 0 ? { start: r.meta.from, spanMs: runSpanMs(r.meta) } : {}),
    ...o,
    finalEquity: r.finalEquity,
  });

const pct = (x: number) => formatPercent(x);
const num = (x: number) => (Number.isFinite(x) ? x.toFixed(2) : String(x));

/** The warm-up row: its length, where it comes from, and the intents it kept from the gate. */
function warmUpLine(w: BacktestResult['warmUp']): string {
  if (w.candles === 0 && w.intents === 0) return 'none';
  const sent = w.intents === 0 ? 'no intent before it' : `${counted(w.intents, 'intent')} before it not sent`;
  return `${counted(w.candles, 'candle')} per symbol and interval (${w.source}); ${sent}`;
}

/**
 * How the headline counts the positions open at the end: their unrealised PnL is in the final equity and the
 * total return (marked at the last close); undefined when none is open.
 */
export function unrealisedSentence(r: BacktestResult, money: (s: string) => string): string | undefined {
  const open = r.openPositions;
  if (open.length === 0) return undefined;
  const total = open.reduce((a, p) => a.plus(p.unrealisedPnl), new Decimal(0));
  const how =
    r.meta.closeAtEnd === true
      ? 'marked at the last close: closeAtEnd could not sell them, see the denials'
      : 'marked at the last close; closeAtEnd: true sells them';
  return `total return includes unrealised PnL of ${money(total.toFixed())} on ${counted(open.length, 'open position')} (${how})`;
}

/** An open position in one line: size, entry, mark and unrealised PnL. */
export function openPositionText(
  p: BacktestResult['openPositions'][number],
  money: (s: string) => string,
): string {
  return `${p.symbol} ${p.size} ${p.size.startsWith('-') ? 'sold short' : 'bought'} at ${p.entryPrice}, marked at ${p.mark} (last close): unrealised ${money(p.unrealisedPnl)} (${pct(Number(p.unrealisedReturn))}), entry tag ${p.entryTag}`;
}

/** The rows of the open positions, right below the headline: what the total return includes. */
function openPositionRows(r: BacktestResult, money: (s: string) => string): [string, string][] {
  const sentence = unrealisedSentence(r, money);
  if (sentence === undefined)
    return [
      [
        'open positions',
        r.meta.closeAtEnd === true
          ? 'none (closeAtEnd: sold at the last close, exit reason end_of_backtest)'
          : 'none',
      ],
    ];
  return [
    ['open positions', sentence],
    ...r.openPositions.map((p): [string, string] => ['', openPositionText(p, money)]),
  ];
}

/** A run with shorts: its closed trades split long / short (count, win rate, PnL after fees, fees). */
function sideRows(r: BacktestResult, money: (s: string) => string): [string, string][] {
  if (!hasShorts(r.trades, r.openPositions)) return [];
  return sideSplit(r.trades).map((x): [string, string] => [
    `  ${x.side}`,
    `${x.trades} closed / ${x.trades > 0 ? pct(x.wins / x.trades) : '-'} won; PnL ${money(x.pnl.toFixed())}, fees ${money(x.fees.toFixed())}`,
  ]);
}

/** The trades row: closed round trips and their win rate, and the positions still open beside them. */
function tradesRow(r: BacktestResult, m: Metrics): [string, string] {
  const open = r.openPositions.length;
  return [
    'trades / win rate',
    `${m.trades} closed / ${pct(m.winRate)} (of closed trades only${open > 0 ? `; ${open} still open` : ''})`,
  ];
}

/**
 * The exits the strategy's own resting limit sells blocked (EXIT_BLOCKED): how many, and the first with the
 * order that held the position; undefined when none was.
 */
export function exitBlockedSentence(r: BacktestResult): string | undefined {
  const n = r.denials['EXIT_BLOCKED'];
  if (n === undefined || n === 0) return undefined;
  const d = r.firstDenials['EXIT_BLOCKED'];
  const first =
    d === undefined
      ? ''
      : `; first ${new Date(d.ts).toISOString().slice(0, 16).replace('T', ' ')} UTC ${d.symbol} ${d.tag ?? ''} blocked by order ${d.blockedBy ?? '(unknown)'}`;
  return `${counted(n, 'exit')} denied EXIT_BLOCKED: the strategy's own resting limit sells held the position${first}`;
}

/** The run's interval, and the data's when the run resampled it: "5m (resampled from 1m)". */
export function intervalText(meta: BacktestResult['meta']): string {
  return meta.resampledFrom === undefined
    ? meta.interval
    : `${meta.interval} (resampled from ${meta.resampledFrom})`;
}

/** A terminal summary table. */
export function formatSummary(r: BacktestResult, m: Metrics = metricsOf(r), quoteDp = 2): string {
  const money = (s: string) => formatAmount(s, quoteDp);
  const b = m.benchmark;
  const rows: [string, string][] = [
    ['strategy', `${r.meta.strategy} ${JSON.stringify(r.meta.params)}`],
    ['exits', rulesText(r.meta.exits)],
    ['protections', rulesText(r.meta.protections)],
    [
      'dataset',
      `${r.meta.dataset} (${r.meta.symbol} ${r.meta.interval}, ${r.meta.candles.toLocaleString('en-US')} candles)`,
    ],
    ...(r.meta.resampledFrom === undefined
      ? []
      : ([['interval', intervalText(r.meta)]] as [string, string][])),
    [
      'period',
      `${new Date(r.meta.from).toISOString().slice(0, 10)} to ${new Date(r.meta.to).toISOString().slice(0, 10)}`,
    ],
    ['final equity', `${money(m.finalEquity)} (from ${r.meta.capital})`],
    ['total return', pct(m.totalReturn)],
    ...openPositionRows(r, money),
    ['exits blocked', exitBlockedSentence(r) ?? 'none'],
    ['CAGR', `${pct(m.cagr)} over ${formatDuration(m.spanMs)} (first open to last close)`],
    ['Sharpe / Sortino / Calmar', `${num(m.sharpe)} / ${num(m.sortino)} (daily returns) / ${num(m.calmar)}`],
    [
      'max drawdown',
      `${pct(m.maxDrawdown)} over ${formatDuration(m.maxDrawdownDurationMs)} (equity at every candle's close)`,
    ],
    tradesRow(r, m),
    ...sideRows(r, money),
    ['profit factor / expectancy', `${num(m.profitFactor)} / ${money(m.expectancy)}`],
    ['exposure', pct(m.exposure)],
    ['fees', money(m.fees)],
    ['warm-up', warmUpLine(r.warmUp)],
    ...(b
      ? ([
          [
            (r.meta.symbols?.length ?? 1) > 1 ? 'buy & hold (equal weight)' : 'buy & hold',
            `${pct(b.totalReturn)}; excess ${pct(b.excessReturn)}, alpha ${pct(b.alpha)}, beta ${num(b.beta)}`,
          ],
        ] as [string, string][])
      : []),
    [
      'denials',
      Object.entries(r.denials)
        .map(([k, v]) => `${k} ${v}`)
        .join(', ') || 'none',
    ],
    // Each code's first refusal, as said: what the count alone cannot tell (which lock, which limit).
    ...Object.entries(r.firstDenials).map(([code, d]): [string, string] => [
      '',
      `first ${code}: ${new Date(d.ts).toISOString().slice(0, 16).replace('T', ' ')} UTC ${d.symbol}: ${d.message}`,
    ]),
    ['trade hash', r.meta.tradeHash],
  ];
  const w = Math.max(...rows.map(([k]) => k.length));
  return rows.map(([k, v]) => `${k.padEnd(w)}  ${v}`).join('\n');
}
