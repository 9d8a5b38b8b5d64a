// The tearsheet's summary: the header block (a run described in a few lines, to paste into an issue), the tiles
// of figures, and the monthly returns.
import type { BacktestResult } from '../backtest/result.js';
import { Decimal } from '../market/decimal.js';
import { formatDuration } from '../market/duration.js';
import { counted } from '../market/spelling.js';
import { exitBlockedSentence, intervalText, unrealisedSentence, type Metrics } from './metrics.js';
import { num, pct, type InstrumentFormat } from './report-page.js';
import { rulesText } from '../strategy/exits.js';

/** The tiles of the tearsheet: the run's figures, and the benchmark's when there is one. */
export function summaryTiles(r: BacktestResult, m: Metrics, f: InstrumentFormat): [string, string][] {
  const b = m.benchmark;
  const { money, quote } = f;
  const unrealised = r.openPositions.reduce((a, p) => a.plus(p.unrealisedPnl), new Decimal(0));
  return [
    ['Total return', pct(m.totalReturn)],
    [
      'Open positions',
      r.openPositions.length === 0
        ? 'none'
        : `${r.openPositions.length}: unrealised ${money(unrealised.toFixed())} ${quote} (in the return)`,
    ],
    ['CAGR', `${pct(m.cagr)} (${formatDuration(m.spanMs)})`],
    ['Sharpe (daily)', num(m.sharpe)],
    ['Sortino (daily)', num(m.sortino)],
    ['Calmar', num(m.calmar)],
    ['Max drawdown', `${pct(m.maxDrawdown)} (${formatDuration(m.maxDrawdownDurationMs)})`],
    ['Exits blocked', String(r.denials['EXIT_BLOCKED'] ?? 0)],
    ['Closed trades', String(m.trades)],
    ['Win rate (closed)', pct(m.winRate)],
    ['Profit factor', num(m.profitFactor)],
    ['Expectancy', `${money(m.expectancy)} ${quote}`],
    ['Exposure', pct(m.exposure)],
    ['Fees', `${money(m.fees)} ${quote}`],
    ['Final equity', `${money(m.finalEquity)} ${quote}`],
    ...(b
      ? ([
          ['Buy & hold return', pct(b.totalReturn)],
          ['Excess return', pct(b.excessReturn)],
          ['Alpha (annual)', pct(b.alpha)],
          ['Beta', num(b.beta)],
          ['Buy & hold max DD', pct(b.maxDrawdown)],
        ] as [string, string][])
      : []),
  ];
}

/** The header block: strategy, dataset, span, costs, result, benchmark, denials and the trade hash. */
export function runHeader(
  r: BacktestResult,
  m: Metrics,
  version: string | undefined,
  f: InstrumentFormat,
): string {
  const b = m.benchmark;
  const { clock, money, quote } = f;
  return [
    `tradebot ${version ?? ''} backtest`.replace('  ', ' '),
    `strategy   ${r.meta.strategy} ${JSON.stringify(r.meta.params)}`,
    `exits      ${rulesText(r.meta.exits)}; protections ${rulesText(r.meta.protections)}`,
    `dataset    ${r.meta.dataset}: ${r.meta.symbol} ${intervalText(r.meta)}, ${r.meta.candles.toLocaleString('en-US')} candles`,
    `span       ${clock.text(r.meta.from)} to ${clock.text(r.meta.to)}${clock.label === clock.zone ? '' : ` (${clock.zone})`}`,
    `costs      capital ${r.meta.capital} ${quote}, fee rate ${r.meta.feeRate}, slippage ${r.meta.slippageBps} bps`,
    `result     final equity ${money(m.finalEquity)} ${quote} (${pct(m.totalReturn)}), ${counted(m.trades, 'closed trade')}, Sharpe ${num(m.sharpe)}, max drawdown ${pct(m.maxDrawdown)}`,
    ...(unrealisedSentence(r, money) === undefined
      ? []
      : [`open       ${unrealisedSentence(r, money) ?? ''}`]),
    ...(exitBlockedSentence(r) === undefined ? [] : [`blocked    ${exitBlockedSentence(r) ?? ''}`]),
    ...(b
      ? [
          `benchmark  buy & hold${(r.meta.symbols?.length ?? 1) > 1 ? ` (equal weight of ${r.meta.symbols?.length ?? 0} symbols)` : ''} ${pct(b.totalReturn)}; excess ${pct(b.excessReturn)}, alpha ${pct(b.alpha)}, beta ${num(b.beta)}`,
        ]
      : []),
    ...(Object.keys(r.denials).length > 0
      ? [
          `denials    ${Object.entries(r.denials)
            .map(([k, v]) => `${k} ${v}`)
            .join(', ')}`,
        ]
      : []),
    `trade hash ${r.meta.tradeHash}`,
  ].join('\n');
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** Green for gains, red for losses, the stronger the larger (full at 10% a month). */
function heat(r: number, full = 0.1): string {
  const a = Math.min(1, Math.abs(r) / full) * 0.75 + 0.05;
  return r >= 0 ? `rgba(46,125,50,${a.toFixed(2)})` : `rgba(198,40,40,${a.toFixed(2)})`;
}

/** Returns by month, a row a year, with the year's compounded return. */
export function monthlyTable(m: Metrics): string {
  const years = new Map<string, (number | undefined)[]>();
  for (const x of m.monthly) {
    const [y, mo] = x.month.split('-') as [string, string];
    const row = years.get(y) ?? new Array<number | undefined>(12).fill(undefined);
    row[Number(mo) - 1] = x.return;
    years.set(y, row);
  }
  const cell = (r: number | undefined) =>
    r === undefined ? '<td></td>' : `<td style="background:${heat(r)}">${pct(r)}</td>`;
  const rows = [...years.entries()].map(([y, row]) => {
    const year = row.reduce<number>((a, r) => a * (1 + (r ?? 0)), 1) - 1;
    return `<tr><th>${y}</th>${row.map(cell).join('')}<td style="background:${heat(year, 0.3)}"><b>${pct(year)}</b></td></tr>`;
  });
  return `<table id="monthly" class="heat"><thead><tr><th>Year</th>${MONTHS.map((x) => `<th>${x}</th>`).join('')}<th>Year</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
}
