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
// This module composes the tearsheet from its sections (report-summary, report-charts, report-tables, on the
// shared report-page); the sweep and walk-forward pages have their own modules, exported from here too.
import type { Instrument } from '../api/index.js';
import type { BacktestResult } from '../backtest/result.js';
import { intervalText, type Metrics } from './metrics.js';
import { chartPanels, chartScript, reportCharts } from './report-charts.js';
import { chartLibrary, esc, instrumentFormat, page, tileGrid } from './report-page.js';
import { monthlyTable, runHeader, summaryTiles } from './report-summary.js';
import {
  denialTable,
  openPositionTable,
  reasonTable,
  symbolTable,
  sideTable,
  tagTable,
  tradeRecords,
  tradesSection,
} from './report-tables.js';
import type { Excursion } from './run-job.js';

export { exchangeTimeZone } from './report-page.js';
export { LABELLED_MARKERS, MAX_MARKERS, chartMarkers } from './report-charts.js';
export { TRADES_PER_PAGE } from './report-tables.js';
export { renderSweepReport } from './sweep-report.js';
export { renderWalkForwardReport } from './walk-forward-report.js';

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

/** The backtest tearsheet. */
export function renderReport(r: BacktestResult, m: Metrics, o: ReportOptions = {}): string {
  const f = instrumentFormat(o.instrument);
  const charts = reportCharts(r, o.benchmark, f.clock);
  const trades = tradeRecords(r, o.excursions);
  const body = `<h1>${esc(r.meta.strategy)} on ${esc(r.meta.symbol)} (${esc(intervalText(r.meta))})</h1>
<p>Times in ${esc(f.clock.named)}; money in ${esc(f.quote || 'the quote coin')}, rounded to ${f.qdp} places. Paste the block below into an issue to describe this run.</p>
<pre id="header">${esc(runHeader(r, m, o.version, f))}</pre>
${tileGrid(summaryTiles(r, m, f))}
<h2>Open positions at the end</h2>
${openPositionTable(r, f)}
${chartPanels(charts)}
<h2>Monthly returns (${esc(f.clock.label)})</h2>${monthlyTable(m)}
${sideTable(r, f)}
<h2>By symbol</h2>
${symbolTable(r, f)}
<h2>Entry tags</h2>
${tagTable(r, trades, f)}
<h2>Exit reasons</h2>
${reasonTable(trades, f)}
<h2>Denials</h2>
${denialTable(r, f)}
${tradesSection(trades, f)}
<script>${chartLibrary()}</script>
${chartScript(charts)}`;
  return page(`tradebot backtest: ${r.meta.strategy} on ${r.meta.symbol}`, '', body);
}
