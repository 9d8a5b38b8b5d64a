// Self-contained HTML reports: a backtest tearsheet (report.html), a sweep table and heatmap (sweep.html)
// and a walk-forward report (walk-forward.html). One file each, the chart library (lightweight-charts,
// Apache-2.0) embedded, so they open offline with no CDN. Rules the pages follow:
// - locale: the charts use a fixed en-US locale; the browser's default follows LANG, and under
//   LANG=C.UTF-8 Chromium answers "en-US@posix", which Intl refuses (every chart stayed blank);
// - time: every time is shown in the instrument's exchange time zone (America/New_York for Reality
//   tokens, UTC otherwise), named on the page; the charts are shifted by the zone's offset at each instant
//   because the chart library draws UTC;
// - money: rounded to the quote coin's precision (prices to the price precision) for display only;
// - the price chart shows the whole run as downsampled candles (the engine keeps 3,000 to 6,000 bars by
//   merging neighbours, so each bar spans 2^k candles), and at most MAX_MARKERS entry/exit markers:
//   fills on the same bar, or when there are too many on neighbouring bars, merge into one marker that
//   counts them. Every trade is still in the trade table.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { Instrument } from '../api/index.js';
import { formatDuration } from '../market/duration.js';
import { Decimal, formatAmount, formatPercent } from '../market/decimal.js';
import { quoteDecimals } from '../market/instrument-rules.js';
import { wallClockIn } from '../market/sessions.js';
import { US_EASTERN } from '../market/us-calendar.js';
import type { Metrics } from './metrics.js';
import type { BacktestFill, BacktestResult, ChartBar, EquityCurvePoint } from '../backtest/result.js';
import type { Excursion } from './run-job.js';
import type { SortKey, SweepRow } from './sweep.js';
import type { WalkForwardResult } from './walk-forward.js';
import { counted } from '../market/spelling.js';
import { pickParams } from '../strategy/params.js';

/** The most markers the price chart draws (documented in backtest/README.md). */
export const MAX_MARKERS = 150;
/** Up to this many markers, a marker of one fill is labelled with its reason. */
export const LABELLED_MARKERS = 24;
/** Rows of the trade table drawn at once; the pager walks through all of them. */
export const TRADES_PER_PAGE = 250;

function chartLibrary(): string {
  // The package exports only ESM entry points and its package.json; the standalone build sits in dist/.
  const pkg = createRequire(import.meta.url).resolve('lightweight-charts/package.json');
  return readFileSync(join(dirname(pkg), 'dist', 'lightweight-charts.standalone.production.js'), 'utf8');
}

const esc = (s: string) =>
  s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c] as string);
// JSON inside <script>: keep "</script>" and friends from closing the tag.
const safeJson = (v: unknown) => JSON.stringify(v).replace(/</g, '\\u003c');
const pct = (x: number) => formatPercent(x);
const num = (x: number) => (Number.isFinite(x) ? x.toFixed(2) : x > 0 ? '∞' : '—');

/** The exchange's time zone of an instrument: Reality tokens trade on US hours. */
export function exchangeTimeZone(instrument: Instrument | undefined): { zone: string; label: string } {
  return instrument?.isReality === 'yes' ? { zone: US_EASTERN, label: 'ET' } : { zone: 'UTC', label: 'UTC' };
}

/** Formats instants in one time zone, and gives the zone's offset for the charts. */
class ZoneClock {
  constructor(
    readonly zone: string,
    readonly label: string,
  ) {}
  /** Wall-clock fields of an instant in the zone, as if it were UTC (for the chart and the text). */
  private local(ms: number): number {
    return wallClockIn(ms, this.zone);
  }
  /** "2008-01-02 09:30 ET" */
  text(ms: number): string {
    return `${new Date(this.local(ms)).toISOString().slice(0, 16).replace('T', ' ')} ${this.label}`;
  }
  /** "ET (America/New_York)", or "UTC" once. */
  get named(): string {
    return this.label === this.zone ? this.label : `${this.label} (${this.zone})`;
  }
  /** Chart time (seconds) that the UTC-drawing chart shows as the zone's wall clock. */
  chart(ms: number): number {
    return Math.floor(this.local(ms) / 1000);
  }
}

interface Marker {
  readonly time: number;
  readonly position: 'belowBar' | 'aboveBar';
  readonly color: string;
  readonly shape: 'arrowUp' | 'arrowDown';
  readonly text: string;
}

/**
 * Entry and exit markers on the chart's bars: fills of one side on one bar merge into one marker, and
 * neighbouring bars merge (in groups of 2, 4, 8 ... bars) until at most `cap` markers remain.
 */
export function chartMarkers(
  bars: readonly ChartBar[],
  fills: readonly BacktestFill[],
  toChart: (ms: number) => number,
  cap = MAX_MARKERS,
): Marker[] {
  if (bars.length === 0 || fills.length === 0) return [];
  const barOf = (ts: number) => {
    let lo = 0;
    let hi = bars.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((bars[mid] as ChartBar).time <= ts) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  };
  const idx = fills.map((f) => barOf(f.ts));
  let k = 1;
  const groupsAt = (size: number) =>
    new Set(fills.map((f, i) => `${Math.floor((idx[i] as number) / size)}:${f.side}`));
  while (groupsAt(k).size > cap) k *= 2;
  const groups = new Map<string, { bar: number; side: 'buy' | 'sell'; n: number; tags: Set<string> }>();
  fills.forEach((f, i) => {
    const key = `${Math.floor((idx[i] as number) / k)}:${f.side}`;
    const g = groups.get(key) ?? { bar: idx[i] as number, side: f.side, n: 0, tags: new Set<string>() };
    g.n++;
    if (f.tag) g.tags.add(f.tag);
    groups.set(key, g);
  });
  // Past a couple of dozen markers their reasons overprint each other on the chart: arrows only then.
  const labelled = groups.size <= LABELLED_MARKERS;
  return [...groups.values()]
    .sort((a, b) => a.bar - b.bar || (a.side === 'buy' ? -1 : 1))
    .map((g) => ({
      time: toChart((bars[g.bar] as ChartBar).time),
      position: g.side === 'buy' ? 'belowBar' : 'aboveBar',
      color: g.side === 'buy' ? '#2e7d32' : '#c62828',
      shape: g.side === 'buy' ? 'arrowUp' : 'arrowDown',
      // One fill: its reason (the fill's tag). Merged fills: how many (reasons are in the tables below).
      text: g.n > 1 ? `${g.n}` : labelled ? ([...g.tags][0] ?? (g.side === 'buy' ? 'entry' : 'exit')) : '',
    }));
}

/** Extra inputs of the tearsheet that the engine's result does not hold. */
export interface ReportOptions {
  /** The dataset's instrument: quote/price precision and the exchange's time zone. */
  readonly instrument?: Instrument | undefined;
  /** Buy-and-hold equity at each equity sample (analyseRun). */
  readonly benchmark?: readonly number[] | undefined;
  /** MAE/MFE per trade, in the order of the trades (analyseRun). */
  readonly excursions?: readonly Excursion[] | undefined;
  readonly version?: string | undefined;
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** Green for gains, red for losses, the stronger the larger (full at 10% a month). */
function heat(r: number, full = 0.1): string {
  const a = Math.min(1, Math.abs(r) / full) * 0.75 + 0.05;
  return r >= 0 ? `rgba(46,125,50,${a.toFixed(2)})` : `rgba(198,40,40,${a.toFixed(2)})`;
}

function monthlyTable(m: Metrics): string {
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

const page = (title: string, style: string, body: string) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${esc(title)}</title>
<style>
body{font:14px system-ui,sans-serif;margin:24px;color:#222}h1{font-size:20px}h2{font-size:16px;margin-top:28px}
.grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(170px,1fr));gap:8px}.m{background:#f4f6f8;padding:8px;border-radius:6px}
.m b{display:block;font-size:16px}.chart{height:360px;margin-top:8px}.small{height:200px}
table{border-collapse:collapse;width:100%}td,th{border-bottom:1px solid #ddd;padding:4px 8px;text-align:right}th:first-child,td:first-child{text-align:left}
.pos{color:#2e7d32}.neg{color:#c62828}pre{background:#f4f6f8;padding:10px;border-radius:6px;white-space:pre-wrap}
.nw{white-space:nowrap}td.why,th.why{text-align:left}.heat td{text-align:center;font-size:12px}.scroll{max-height:600px;overflow:auto}
${style}
</style></head><body>
${body}
</body></html>
`;

/** The backtest tearsheet. */
export function renderReport(r: BacktestResult, m: Metrics, o: ReportOptions = {}): string {
  const { zone, label } = exchangeTimeZone(o.instrument);
  const clock = new ZoneClock(zone, label);
  const quote = o.instrument?.quoteCoin ?? '';
  const qdp = quoteDecimals(o.instrument);
  const pdp = Number(o.instrument?.pricePrecision ?? 8);
  const money = (s: string) => formatAmount(s, qdp);
  // With the instrument known, a column of prices (quantities) shares its decimals, so the points line up.
  const price = (s: string) => {
    const d = new Decimal(s).toDecimalPlaces(pdp);
    return o.instrument?.pricePrecision === undefined ? d.toFixed() : d.toFixed(pdp);
  };
  const qp = o.instrument?.quantityPrecision;
  const quantity = (s: string) => {
    if (qp === undefined) return s;
    const d = new Decimal(s);
    return d.toFixed(Math.max(Number(qp), d.decimalPlaces()));
  };
  const t = (ms: number) => clock.chart(ms);
  const ascending = <T extends { time: number }>(xs: T[]) =>
    xs.filter((x, i) => i === 0 || x.time > (xs[i - 1] as T).time);

  // The price chart of one symbol: its bars, its fills as markers, and a caption of what it shows. Over
  // several symbols, the first is shown and a select switches to the others.
  const chartOf = (symbol: string | undefined) => {
    const chart = symbol === undefined ? r.chart : (r.charts?.[symbol] ?? []);
    const fills = symbol === undefined ? r.fills : r.fills.filter((f) => f.symbol === symbol);
    const candles = symbol === undefined ? r.meta.candles : (r.bySymbol[symbol]?.candles ?? 0);
    const bars = ascending(
      chart.map((b) => ({ time: t(b.time), open: b.open, high: b.high, low: b.low, close: b.close })),
    );
    const markers = chartMarkers(chart, fills, t);
    const caption = `${bars.length.toLocaleString('en-US')} bars for ${candles.toLocaleString('en-US')} candles${chart.length > 0 && candles > chart.length ? ` (each bar merges ${Math.round(candles / chart.length)} candles)` : ''}; ${markers.length} markers for ${fills.length} fills (at most ${MAX_MARKERS}: fills on neighbouring bars merge into one marker that shows their count; ${markers.length > LABELLED_MARKERS ? `past ${LABELLED_MARKERS} markers the chart shows no reasons; ` : ''}the reasons are in the tables below).`;
    return { bars, markers, caption };
  };
  const symbols = r.meta.symbols ?? [];
  const views = symbols.length > 1 ? Object.fromEntries(symbols.map((s) => [s, chartOf(s)])) : undefined;
  const { bars, markers, caption } = views?.[symbols[0] as string] ?? chartOf(undefined);
  const equity = ascending(r.equity.map((p) => ({ time: t(p.ts), value: Math.round(p.equity * 100) / 100 })));
  const bench =
    o.benchmark && o.benchmark.length === r.equity.length
      ? ascending(
          r.equity.map((p, i) => ({
            time: t(p.ts),
            value: Math.round((o.benchmark?.[i] as number) * 100) / 100,
          })),
        )
      : [];
  let peak = -Infinity;
  const dd = equity.map((p) => {
    peak = Math.max(peak, p.value);
    return { time: p.time, value: Math.round(((p.value - peak) / peak) * 10000) / 100 };
  });

  // Tags of the fills that opened and closed each round trip: its entry and exit reasons.
  const tagAt = new Map<string, string>();
  for (const f of r.fills) tagAt.set(`${f.ts}:${f.side}`, f.tag);
  const trades = r.trades.map((x, i) => {
    const cost = new Decimal(x.entryPrice).mul(x.quantity);
    return {
      ...x,
      n: i + 1,
      entryReason: tagAt.get(`${x.entryTime}:buy`) ?? '',
      exitReason: tagAt.get(`${x.exitTime}:sell`) ?? '',
      pnlPct: cost.gt(0) ? new Decimal(x.pnl).div(cost).toNumber() : 0,
      excursion: o.excursions?.[i],
    };
  });
  const reasons = new Map<string, { n: number; wins: number; pnl: Decimal; pct: number }>();
  for (const x of trades) {
    const g = reasons.get(x.exitReason) ?? { n: 0, wins: 0, pnl: new Decimal(0), pct: 0 };
    g.n++;
    if (new Decimal(x.pnl).gt(0)) g.wins++;
    g.pnl = g.pnl.plus(x.pnl);
    g.pct += x.pnlPct;
    reasons.set(x.exitReason, g);
  }

  const b = m.benchmark;
  const tiles: [string, string][] = [
    ['Total return', pct(m.totalReturn)],
    ['CAGR', pct(m.cagr)],
    ['Sharpe', num(m.sharpe)],
    ['Sortino', num(m.sortino)],
    ['Calmar', num(m.calmar)],
    ['Max drawdown', `${pct(m.maxDrawdown)} (${formatDuration(m.maxDrawdownDurationMs)})`],
    ['Trades', String(m.trades)],
    ['Win rate', pct(m.winRate)],
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
  const header = [
    `tradebot ${o.version ?? ''} backtest`.replace('  ', ' '),
    `strategy   ${r.meta.strategy} ${JSON.stringify(r.meta.params)}`,
    `dataset    ${r.meta.dataset}: ${r.meta.symbol} ${r.meta.interval}, ${r.meta.candles.toLocaleString('en-US')} candles`,
    `span       ${clock.text(r.meta.from)} to ${clock.text(r.meta.to)}${clock.label === zone ? '' : ` (${zone})`}`,
    `costs      capital ${r.meta.capital} ${quote}, fee rate ${r.meta.feeRate}, slippage ${r.meta.slippageBps} bps`,
    `result     final equity ${money(m.finalEquity)} ${quote} (${pct(m.totalReturn)}), ${counted(m.trades, 'trade')}, Sharpe ${num(m.sharpe)}, max drawdown ${pct(m.maxDrawdown)}`,
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
  // Each code the gate or the venue refused with: how often, and its first sentence.
  const denialRows = Object.entries(r.denials)
    .map(([code, n]) => {
      const d = r.firstDenials[code];
      return `<tr><td>${esc(code)}</td><td>${n}</td><td class="nw">${d ? clock.text(d.ts) : ''}</td><td>${d ? esc(d.symbol) : ''}</td><td class="why">${d ? esc(d.message) : ''}</td></tr>`;
    })
    .join('');

  // Rows as data, drawn a page at a time: 40,000 trades as HTML rows would take the browser a minute.
  const tradeRows = trades.map((x) => {
    const e = x.excursion;
    return [
      String(x.n),
      clock.text(x.entryTime),
      clock.text(x.exitTime),
      formatDuration(x.exitTime - x.entryTime),
      x.entryReason,
      x.exitReason,
      price(x.entryPrice),
      price(x.exitPrice),
      quantity(x.quantity),
      money(x.fees),
      money(x.pnl),
      pct(x.pnlPct),
      e ? pct(e.mae) : '',
      e ? pct(e.mfe) : '',
    ];
  });
  // Fees of every fill (an open position's entry too, as the Fees tile), PnL of the closed round trips.
  const symbolTable = `<table id="symbols"><thead><tr><th>Symbol</th><th>Candles</th><th>Fills</th><th>Trades</th><th>Win rate</th><th>Fees</th><th>Realised PnL</th><th>Position</th></tr></thead><tbody>${Object.entries(
    r.bySymbol,
  )
    .map(
      ([s, x]) =>
        `<tr><td>${esc(s)}</td><td>${x.candles}</td><td>${x.fills}</td><td>${x.trades}</td><td>${x.trades > 0 ? pct(x.wins / x.trades) : ''}</td><td>${money(x.fees)}</td><td class="${new Decimal(x.pnl).gte(0) ? 'pos' : 'neg'}">${money(x.pnl)}</td><td>${esc(x.position)}</td></tr>`,
    )
    .join('')}</tbody></table>`;
  const reasonRows = [...reasons.entries()]
    .map(
      ([k, g]) =>
        `<tr><td>${esc(k || '(untagged)')}</td><td>${g.n}</td><td>${pct(g.wins / g.n)}</td><td>${pct(g.pct / g.n)}</td><td class="${g.pnl.gte(0) ? 'pos' : 'neg'}">${money(g.pnl.toFixed())}</td></tr>`,
    )
    .join('');

  const body = `<h1>${esc(r.meta.strategy)} on ${esc(r.meta.symbol)} (${esc(r.meta.interval)})</h1>
<p>Times in ${esc(clock.named)}; money in ${esc(quote || 'the quote coin')}, rounded to ${qdp} places. Paste the block below into an issue to describe this run.</p>
<pre id="header">${esc(header)}</pre>
<div class="grid">${tiles.map(([k, v]) => `<div class="m">${esc(k)}<b>${esc(v)}</b></div>`).join('')}</div>
<h2>Price, entries and exits${views === undefined ? '' : ` of <select id="symbol">${symbols.map((s) => `<option>${esc(s)}</option>`).join('')}</select> (one of ${symbols.length} symbols)`}</h2>
<p id="chart-caption">${esc(caption)}</p>
<div id="candles" data-chart class="chart"></div>
<h2>Equity${bench.length > 0 ? ' against buy &amp; hold' : ''}</h2><div id="equity" data-chart class="chart small"></div>
<h2>Drawdown (%)</h2><div id="drawdown" data-chart class="chart small"></div>
<h2>Monthly returns (${esc(label)})</h2>${monthlyTable(m)}
<h2>By symbol</h2>
${symbolTable}
<h2>Exit reasons</h2>
<table id="reasons"><thead><tr><th>Exit reason</th><th>Trades</th><th>Win rate</th><th>Mean PnL %</th><th>PnL</th></tr></thead><tbody>${reasonRows}</tbody></table>
<h2>Denials</h2>
<table id="denials"><thead><tr><th>Code</th><th>Intents</th><th>First</th><th>Symbol</th><th class="why">First sentence</th></tr></thead><tbody>${denialRows}</tbody>${denialRows === '' ? '<tfoot><tr><td colspan="5">none: every intent went to the venue</td></tr></tfoot>' : ''}</table>
<h2>Trades (all ${trades.length})</h2>
<p id="pager"><button id="prev">&larr; newer</button> <span id="page"></span> <button id="next">older &rarr;</button></p>
<div class="scroll"><table id="trades" data-total="${trades.length}"><thead><tr><th>#</th><th>Entry</th><th>Exit</th><th>Duration</th><th>Entry reason</th><th>Exit reason</th><th>Entry price</th><th>Exit price</th><th>Quantity</th><th>Fees</th><th>PnL</th><th>PnL %</th><th>MAE</th><th>MFE</th></tr></thead><tbody></tbody></table></div>
<script>
// The trade table: every trade, newest first, ${TRADES_PER_PAGE} to a page.
(function () {
  var rows = ${safeJson(tradeRows)};
  var size = ${TRADES_PER_PAGE};
  var pages = Math.max(1, Math.ceil(rows.length / size));
  var at = 0;
  var tbody = document.querySelector('#trades tbody');
  function cell(text, cls) {
    var td = document.createElement('td');
    td.textContent = text;
    if (cls) td.className = cls;
    return td;
  }
  function show(p) {
    at = Math.min(pages - 1, Math.max(0, p));
    tbody.textContent = '';
    for (var i = rows.length - 1 - at * size; i >= 0 && i > rows.length - 1 - (at + 1) * size; i--) {
      var tr = document.createElement('tr');
      rows[i].forEach(function (v, j) {
        tr.appendChild(cell(v, j === 10 ? (v.charAt(0) === '-' ? 'neg' : 'pos') : ''));
      });
      tbody.appendChild(tr);
    }
    document.getElementById('page').textContent = 'page ' + (at + 1) + ' of ' + pages;
  }
  document.getElementById('prev').onclick = function () { show(at - 1); };
  document.getElementById('next').onclick = function () { show(at + 1); };
  window.showTradesPage = show;
  show(0);
})();
</script>
<script>${chartLibrary()}</script>
<script>
try {
  var LC = window.LightweightCharts;
  // A fixed locale: see the note at the top of src/research/report.ts.
  // minBarSpacing: the library's default (0.5 px a bar) cannot fit thousands of bars, and fitContent then
  // showed only the run's last years; the whole run must fit.
  var opts = { autoSize: true, localization: { locale: 'en-US' }, layout: { background: { color: '#ffffff' }, textColor: '#333' }, timeScale: { timeVisible: true, minBarSpacing: 0.001, fixLeftEdge: true, fixRightEdge: true } };
  var c1 = LC.createChart(document.getElementById('candles'), opts);
  var candles = c1.addSeries(LC.CandlestickSeries, {});
  // Several symbols: a view per symbol (the first shown), and the select shows another's bars and fills.
  var views = ${safeJson(views ?? null)};
  var shown = views ? views[${safeJson(symbols[0] ?? '')}] : ${views === undefined ? safeJson({ bars, markers }) : 'null'};
  candles.setData(shown.bars);
  // Markers never stretch the price axis (thousands of them once pushed it to -250).
  var marks = LC.createSeriesMarkers(candles, shown.markers, { autoScale: false });
  c1.timeScale().fitContent();
  if (views) document.getElementById('symbol').addEventListener('change', function (e) {
    var v = views[e.target.value];
    candles.setData(v.bars);
    marks.setMarkers(v.markers);
    document.getElementById('chart-caption').textContent = v.caption;
    document.body.dataset.markers = v.markers.length;
    document.body.dataset.symbol = e.target.value;
    c1.timeScale().fitContent();
  });
  var c2 = LC.createChart(document.getElementById('equity'), opts);
  c2.addSeries(LC.LineSeries, { color: '#1565c0', title: 'strategy' }).setData(${safeJson(equity)});
  var bench = ${safeJson(bench)};
  if (bench.length > 0) c2.addSeries(LC.LineSeries, { color: '#9e9e9e', lineWidth: 1, title: 'buy & hold' }).setData(bench);
  c2.timeScale().fitContent();
  var c3 = LC.createChart(document.getElementById('drawdown'), opts);
  c3.addSeries(LC.AreaSeries, { lineColor: '#c62828', topColor: 'rgba(198,40,40,0.1)', bottomColor: 'rgba(198,40,40,0.4)' }).setData(${safeJson(dd)});
  c3.timeScale().fitContent();
  document.body.dataset.markers = ${markers.length};
  // autoSize measures the containers on the next frame: fit again once they have their width.
  requestAnimationFrame(function () {
    [c1, c2, c3].forEach(function (c) { c.timeScale().fitContent(); });
    document.body.dataset.rendered = 'ok';
  });
} catch (e) {
  document.body.dataset.rendered = 'error: ' + (e && e.message ? e.message : String(e));
}
</script>`;
  return page(`tradebot backtest: ${r.meta.strategy} on ${r.meta.symbol}`, '', body);
}

/** A sortable table of the sweep's runs and, for two parameters, a heatmap of the chosen metric. */
export function renderSweepReport(rows: readonly SweepRow[], metric: SortKey, title: string): string {
  const keys = Object.keys(rows[0]?.params ?? {});
  const cols: [string, (r: SweepRow) => number | undefined, (x: number) => string][] = [
    ['sharpe', (r) => r.metrics?.sharpe, num],
    ['sortino', (r) => r.metrics?.sortino, num],
    ['calmar', (r) => r.metrics?.calmar, num],
    ['totalReturn', (r) => r.metrics?.totalReturn, pct],
    ['cagr', (r) => r.metrics?.cagr, pct],
    ['maxDrawdown', (r) => r.metrics?.maxDrawdown, pct],
    ['trades', (r) => r.metrics?.trades, String],
    ['winRate', (r) => r.metrics?.winRate, pct],
    ['profitFactor', (r) => r.metrics?.profitFactor, num],
  ];
  const td = (v: number | undefined, f: (x: number) => string) =>
    v === undefined
      ? '<td data-v="">error</td>'
      : `<td data-v="${Number.isFinite(v) ? v : v > 0 ? 1e308 : -1e308}">${f(v)}</td>`;
  const body = rows
    .map(
      (r) =>
        `<tr>${keys.map((k) => `<td data-v="${esc(String(r.params[k]))}">${esc(String(r.params[k]))}</td>`).join('')}${cols.map(([, get, f]) => td(get(r), f)).join('')}</tr>`,
    )
    .join('\n');
  let heatmap = '';
  if (keys.length === 2) {
    const [kx, ky] = keys as [string, string];
    const xs = [...new Set(rows.map((r) => String(r.params[kx])))].sort(
      (a, b) => Number(a) - Number(b) || a.localeCompare(b),
    );
    const ys = [...new Set(rows.map((r) => String(r.params[ky])))].sort(
      (a, b) => Number(a) - Number(b) || a.localeCompare(b),
    );
    const value = (x: string, y: string) => {
      const v = rows.find((r) => String(r.params[kx]) === x && String(r.params[ky]) === y)?.metrics?.[metric];
      return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
    };
    const vals = rows
      .map((r) => r.metrics?.[metric])
      .filter((v): v is number => typeof v === 'number' && Number.isFinite(v));
    const lo = Math.min(...vals);
    const hi = Math.max(...vals);
    const color = (v: number) => {
      const f = hi > lo ? (v - lo) / (hi - lo) : 0.5;
      return `rgb(${Math.round(198 - f * 152)},${Math.round(40 + f * 85)},${Math.round(40 + f * 10)})`;
    };
    const fmt = cols.find(([n]) => n === metric)?.[2] ?? num;
    heatmap = `<h2>${esc(metric)} by ${esc(kx)} and ${esc(ky)}</h2>
<table id="heatmap" class="heat"><thead><tr><th>${esc(ky)} \\ ${esc(kx)}</th>${xs.map((x) => `<th>${esc(x)}</th>`).join('')}</tr></thead><tbody>
${ys
  .map(
    (y) =>
      `<tr><th>${esc(y)}</th>${xs
        .map((x) => {
          const v = value(x, y);
          return v === undefined
            ? '<td>—</td>'
            : `<td style="background:${color(v)};color:#fff">${fmt(v)}</td>`;
        })
        .join('')}</tr>`,
  )
  .join('\n')}
</tbody></table>`;
  }
  const html = `<h1>${esc(title)}</h1>
<p>${counted(rows.length, 'run')}, ranked by ${esc(metric)}. Click a column to sort.</p>
${heatmap}
<h2>Runs</h2>
<table id="runs"><thead><tr>${[...keys, ...cols.map(([n]) => n)].map((h) => `<th data-sort>${esc(h)}</th>`).join('')}</tr></thead><tbody>
${body}
</tbody></table>
<script>
// Sort by a column on click; again to reverse. Numbers compare as numbers, the rest as text.
document.querySelectorAll('#runs th').forEach(function (th, i) {
  th.style.cursor = 'pointer';
  th.addEventListener('click', function () {
    var tbody = document.querySelector('#runs tbody');
    var dir = th.dataset.dir === 'desc' ? 1 : -1;
    th.dataset.dir = dir === 1 ? 'asc' : 'desc';
    var rows = Array.prototype.slice.call(tbody.rows);
    rows.sort(function (a, b) {
      var x = a.cells[i].dataset.v, y = b.cells[i].dataset.v;
      var nx = parseFloat(x), ny = parseFloat(y);
      var c = !isNaN(nx) && !isNaN(ny) ? nx - ny : String(x).localeCompare(String(y));
      return c * dir;
    });
    rows.forEach(function (r) { tbody.appendChild(r); });
  });
});
document.body.dataset.rendered = 'ok';
</script>`;
  return page(title, '', html);
}

/** In-sample against out-of-sample per window, the chosen parameters, and the stitched equity. */
export function renderWalkForwardReport(
  wf: WalkForwardResult,
  title: string,
  instrument?: Instrument,
  /** The parameters the grid varied: the table shows these; the others are named once as fixed. */
  swept?: readonly string[],
): string {
  const { zone, label } = exchangeTimeZone(instrument);
  const clock = new ZoneClock(zone, label);
  const day = (ms: number) => clock.text(ms).slice(0, 10);
  const qdp = quoteDecimals(instrument);
  const money = (x: string) => formatAmount(x, qdp);
  const named = (ps: [string, unknown][]) =>
    ps.map(([k, v]) => `${k} ${typeof v === 'string' ? v : JSON.stringify(v)}`).join(', ');
  const chosen = (p: Record<string, unknown>) => named(Object.entries(pickParams(p, swept)));
  const fixed = Object.entries(wf.steps[0]?.best ?? {}).filter(
    ([k]) => swept !== undefined && !swept.includes(k),
  );
  const rows = wf.steps
    .map(
      (s) =>
        `<tr><td class="nw">${day(s.window.inSample.from)} to ${day(s.window.inSample.to)}</td><td class="nw">${day(s.window.outOfSample.from)} to ${day(s.window.outOfSample.to)}</td><td>${esc(chosen(s.best))}</td><td>${s.inSample ? pct(s.inSample.totalReturn) : ''}</td><td>${s.inSample ? num(s.inSample.sharpe) : ''}</td><td>${s.inSample ? s.inSample.trades : ''}</td><td>${pct(s.outOfSample.totalReturn)}</td><td>${num(s.outOfSample.sharpe)}</td><td>${s.outOfSample.trades}</td><td>${pct(s.outOfSample.exposure)}</td></tr>`,
    )
    .join('\n');
  const equity = wf.equity
    .map((p: EquityCurvePoint) => ({ time: clock.chart(p.ts), value: Math.round(p.equity * 100) / 100 }))
    .filter((x, i, xs) => i === 0 || x.time > (xs[i - 1] as { time: number }).time);
  const m = wf.metrics;
  const html = `<h1>${esc(title)}</h1>
<p>Each out-of-sample window is warmed up on the ${(wf.warmupMs / 86_400_000).toFixed(0)} days before it (candles the strategy sees but never trades). Times in ${esc(clock.named)}.${fixed.length > 0 ? ` Fixed parameters: ${esc(named(fixed))}.` : ''}</p>
<div class="grid">${(
    [
      ['Stitched return', pct(m.totalReturn)],
      ['Sharpe', num(m.sharpe)],
      ['Max drawdown', pct(m.maxDrawdown)],
      ['Trades (all windows)', String(m.trades)],
      ['Win rate', pct(m.winRate)],
      ['In the market', pct(m.exposure)],
      ['Final equity', `${money(m.finalEquity)} (from ${wf.capital})`],
    ] as [string, string][]
  )
    .map(([k, v]) => `<div class="m">${esc(k)}<b>${esc(v)}</b></div>`)
    .join('')}</div>
<h2>Stitched out-of-sample equity</h2><div id="equity" data-chart class="chart small"></div>
<h2>Windows: in-sample against out-of-sample</h2>
<table id="windows"><thead><tr><th>In-sample</th><th>Out-of-sample</th><th>Chosen parameters</th><th>IS return</th><th>IS Sharpe</th><th>IS trades</th><th>OOS return</th><th>OOS Sharpe</th><th>OOS closed trades</th><th>OOS in the market</th></tr></thead><tbody>
${rows}
</tbody></table>
<script>${chartLibrary()}</script>
<script>
try {
  var LC = window.LightweightCharts;
  var c = LC.createChart(document.getElementById('equity'), { autoSize: true, localization: { locale: 'en-US' }, timeScale: { timeVisible: true, minBarSpacing: 0.001, fixLeftEdge: true, fixRightEdge: true } });
  c.addSeries(LC.LineSeries, { color: '#1565c0' }).setData(${safeJson(equity)});
  requestAnimationFrame(function () {
    c.timeScale().fitContent();
    document.body.dataset.rendered = 'ok';
  });
} catch (e) {
  document.body.dataset.rendered = 'error: ' + (e && e.message ? e.message : String(e));
}
</script>`;
  return page(title, '', html);
}
