// Performance metrics of a backtest. Definitions (documented in backtest/README.md):
// - returns are simple returns between consecutive equity samples; Sharpe = mean/stdev x sqrt(periods
//   per year) with a zero risk-free rate; Sortino uses the downside deviation (root mean square of the
//   negative returns over all periods); periods per year = year / median spacing of the samples;
// - CAGR = (final/initial)^(1/years) - 1 over the span of the samples; Calmar = CAGR / max drawdown;
// - max drawdown = largest fall from a running peak, as a fraction; its duration = longest time from a
//   peak to the recovery of that peak (or to the end);
// - win rate, profit factor (gross profit / gross loss) and expectancy (mean PnL per trade) use the round
//   trips; exposure = share of equity samples with an open position.
import { Decimal } from '../market/decimal.js';
import type { BacktestResult, BacktestTrade, EquityPoint } from './result.js';

export interface Metrics {
  readonly totalReturn: number;
  readonly cagr: number;
  readonly sharpe: number;
  readonly sortino: number;
  readonly calmar: number;
  readonly maxDrawdown: number;
  readonly maxDrawdownDurationMs: number;
  readonly winRate: number;
  readonly profitFactor: number;
  readonly expectancy: number;
  readonly exposure: number;
  readonly trades: number;
  readonly fees: number;
  readonly finalEquity: number;
  readonly bySymbol: Readonly<Record<string, { trades: number; pnl: number; winRate: number }>>;
}

const YEAR_MS = 365.25 * 86_400_000;

function median(xs: number[]): number {
  if (xs.length === 0) return 0;
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
}

export function drawdown(equity: readonly EquityPoint[]): { max: number; durationMs: number } {
  let peak = -Infinity;
  let peakTs = 0;
  let max = 0;
  let longest = 0;
  for (const p of equity) {
    if (p.equity >= peak) {
      if (peak > -Infinity) longest = Math.max(longest, p.ts - peakTs);
      peak = p.equity;
      peakTs = p.ts;
    } else {
      max = Math.max(max, (peak - p.equity) / peak);
    }
  }
  const last = equity[equity.length - 1];
  if (last && last.equity < peak) longest = Math.max(longest, last.ts - peakTs);
  return { max, durationMs: max === 0 ? 0 : longest };
}

export function computeMetrics(
  initial: number,
  equity: readonly EquityPoint[],
  trades: readonly BacktestTrade[],
  fees: number,
): Metrics {
  const curve = equity.length > 0 ? equity : [{ ts: 0, equity: initial, exposed: false }];
  const final = (curve[curve.length - 1] as EquityPoint).equity;
  const values = [initial, ...curve.map((p) => p.equity)];
  const returns: number[] = [];
  for (let i = 1; i < values.length; i++) returns.push((values[i] as number) / (values[i - 1] as number) - 1);
  const gaps: number[] = [];
  for (let i = 1; i < curve.length; i++)
    gaps.push((curve[i] as EquityPoint).ts - (curve[i - 1] as EquityPoint).ts);
  const periodsPerYear = gaps.length > 0 && median(gaps) > 0 ? YEAR_MS / median(gaps) : 252;
  const mean = returns.reduce((a, b) => a + b, 0) / Math.max(1, returns.length);
  const sd = Math.sqrt(returns.reduce((a, r) => a + (r - mean) ** 2, 0) / Math.max(1, returns.length - 1));
  const downside = Math.sqrt(
    returns.reduce((a, r) => a + Math.min(0, r) ** 2, 0) / Math.max(1, returns.length),
  );
  const spanYears =
    curve.length > 1
      ? ((curve[curve.length - 1] as EquityPoint).ts - (curve[0] as EquityPoint).ts) / YEAR_MS
      : 0;
  const totalReturn = final / initial - 1;
  const cagr = spanYears > 0 && final > 0 ? (final / initial) ** (1 / spanYears) - 1 : 0;
  const dd = drawdown(curve);
  const pnls = trades.map((t) => Number(t.pnl));
  const wins = pnls.filter((p) => p > 0);
  const losses = pnls.filter((p) => p < 0);
  const grossProfit = wins.reduce((a, b) => a + b, 0);
  const grossLoss = -losses.reduce((a, b) => a + b, 0);
  const bySymbol: Record<string, { trades: number; pnl: number; winRate: number }> = {};
  for (const t of trades) {
    const s = (bySymbol[t.symbol] ??= { trades: 0, pnl: 0, winRate: 0 });
    s.trades++;
    s.pnl += Number(t.pnl);
  }
  for (const [sym, s] of Object.entries(bySymbol))
    s.winRate = trades.filter((t) => t.symbol === sym && Number(t.pnl) > 0).length / s.trades;
  return {
    totalReturn,
    cagr,
    sharpe: sd > 0 ? (mean / sd) * Math.sqrt(periodsPerYear) : 0,
    sortino: downside > 0 ? (mean / downside) * Math.sqrt(periodsPerYear) : 0,
    calmar: dd.max > 0 ? cagr / dd.max : 0,
    maxDrawdown: dd.max,
    maxDrawdownDurationMs: dd.durationMs,
    winRate: trades.length > 0 ? wins.length / trades.length : 0,
    profitFactor: grossLoss > 0 ? grossProfit / grossLoss : grossProfit > 0 ? Infinity : 0,
    expectancy: trades.length > 0 ? pnls.reduce((a, b) => a + b, 0) / trades.length : 0,
    exposure: curve.length > 0 ? curve.filter((p) => p.exposed).length / curve.length : 0,
    trades: trades.length,
    fees,
    finalEquity: final,
    bySymbol,
  };
}

export const metricsOf = (r: BacktestResult): Metrics =>
  computeMetrics(Number(r.meta.capital), r.equity, r.trades, new Decimal(r.fees).toNumber());

const pct = (x: number) => `${(x * 100).toFixed(2)}%`;
const num = (x: number) => (Number.isFinite(x) ? x.toFixed(2) : String(x));
const days = (ms: number) => `${(ms / 86_400_000).toFixed(1)} days`;

/** A terminal summary table. */
export function formatSummary(r: BacktestResult, m: Metrics = metricsOf(r)): string {
  const rows: [string, string][] = [
    ['strategy', `${r.meta.strategy} ${JSON.stringify(r.meta.params)}`],
    [
      'dataset',
      `${r.meta.dataset} (${r.meta.symbol} ${r.meta.interval}, ${r.meta.candles.toLocaleString('en-US')} candles)`,
    ],
    [
      'period',
      `${new Date(r.meta.from).toISOString().slice(0, 10)} to ${new Date(r.meta.to).toISOString().slice(0, 10)}`,
    ],
    ['final equity', `${num(m.finalEquity)} (from ${r.meta.capital})`],
    ['total return', pct(m.totalReturn)],
    ['CAGR', pct(m.cagr)],
    ['Sharpe / Sortino / Calmar', `${num(m.sharpe)} / ${num(m.sortino)} / ${num(m.calmar)}`],
    ['max drawdown', `${pct(m.maxDrawdown)} over ${days(m.maxDrawdownDurationMs)}`],
    ['trades / win rate', `${m.trades} / ${pct(m.winRate)}`],
    ['profit factor / expectancy', `${num(m.profitFactor)} / ${num(m.expectancy)}`],
    ['exposure', pct(m.exposure)],
    ['fees', num(m.fees)],
    [
      'denials',
      Object.entries(r.denials)
        .map(([k, v]) => `${k} ${v}`)
        .join(', ') || 'none',
    ],
    ['trade hash', r.meta.tradeHash],
  ];
  const w = Math.max(...rows.map(([k]) => k.length));
  return rows.map(([k, v]) => `${k.padEnd(w)}  ${v}`).join('\n');
}
