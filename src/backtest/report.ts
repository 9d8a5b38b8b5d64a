// One self-contained HTML report: candles with entry and exit markers, equity and drawdown curves, the
// metrics and the trade table. The chart library (lightweight-charts, Apache-2.0) is embedded in the
// file, so it opens offline, with no CDN.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { Metrics } from './metrics.js';
import type { BacktestResult } from './result.js';

function chartLibrary(): string {
  // The package exports only ESM entry points and its package.json; the standalone build sits in dist/.
  const pkg = createRequire(import.meta.url).resolve('lightweight-charts/package.json');
  return readFileSync(join(dirname(pkg), 'dist', 'lightweight-charts.standalone.production.js'), 'utf8');
}

const esc = (s: string) =>
  s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c] as string);
// JSON inside <script>: keep "</script>" and friends from closing the tag.
const safeJson = (v: unknown) => JSON.stringify(v).replace(/</g, '\\u003c');

export function renderReport(r: BacktestResult, m: Metrics): string {
  const sec = (ms: number) => Math.floor(ms / 1000);
  const bars = r.chart.map((b) => ({
    time: sec(b.time),
    open: b.open,
    high: b.high,
    low: b.low,
    close: b.close,
  }));
  const barTimes = bars.map((b) => b.time);
  const snap = (ms: number) => {
    const t = sec(ms);
    let lo = 0;
    let hi = barTimes.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((barTimes[mid] as number) <= t) lo = mid;
      else hi = mid - 1;
    }
    return barTimes[lo] ?? t;
  };
  const markers = r.fills.slice(-2000).map((f) => ({
    time: snap(f.ts),
    position: f.side === 'buy' ? 'belowBar' : 'aboveBar',
    color: f.side === 'buy' ? '#2e7d32' : '#c62828',
    shape: f.side === 'buy' ? 'arrowUp' : 'arrowDown',
    text: f.side === 'buy' ? 'entry' : 'exit',
  }));
  const dedupe = <T extends { time: number }>(xs: T[]) =>
    xs.filter((x, i) => i === 0 || x.time > (xs[i - 1] as T).time);
  const equity = dedupe(r.equity.map((p) => ({ time: sec(p.ts), value: Math.round(p.equity * 100) / 100 })));
  let peak = -Infinity;
  const dd = equity.map((p) => {
    peak = Math.max(peak, p.value);
    return { time: p.time, value: Math.round(((p.value - peak) / peak) * 10000) / 100 };
  });
  const pct = (x: number) => `${(x * 100).toFixed(2)}%`;
  const rows: [string, string][] = [
    ['Total return', pct(m.totalReturn)],
    ['CAGR', pct(m.cagr)],
    ['Sharpe', m.sharpe.toFixed(2)],
    ['Sortino', m.sortino.toFixed(2)],
    ['Calmar', m.calmar.toFixed(2)],
    ['Max drawdown', `${pct(m.maxDrawdown)} (${(m.maxDrawdownDurationMs / 86_400_000).toFixed(1)} days)`],
    ['Trades', String(m.trades)],
    ['Win rate', pct(m.winRate)],
    ['Profit factor', Number.isFinite(m.profitFactor) ? m.profitFactor.toFixed(2) : '∞'],
    ['Expectancy', m.expectancy.toFixed(2)],
    ['Exposure', pct(m.exposure)],
    ['Fees', m.fees.toFixed(2)],
    ['Final equity', m.finalEquity.toFixed(2)],
    ['Trade hash', r.meta.tradeHash.slice(0, 16)],
  ];
  const trades = r.trades.slice(-500).reverse();
  const day = (ms: number) => new Date(ms).toISOString().replace('T', ' ').slice(0, 16);
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>tradebot backtest: ${esc(r.meta.strategy)} on ${esc(r.meta.symbol)}</title>
<style>
body{font:14px system-ui,sans-serif;margin:24px;color:#222}h1{font-size:20px}h2{font-size:16px;margin-top:28px}
.grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(170px,1fr));gap:8px}.m{background:#f4f6f8;padding:8px;border-radius:6px}
.m b{display:block;font-size:16px}.chart{height:360px;margin-top:8px}.small{height:200px}
table{border-collapse:collapse;width:100%}td,th{border-bottom:1px solid #ddd;padding:4px 8px;text-align:right}th:first-child,td:first-child{text-align:left}
.pos{color:#2e7d32}.neg{color:#c62828}
</style></head><body>
<h1>${esc(r.meta.strategy)} on ${esc(r.meta.symbol)} (${esc(r.meta.interval)})</h1>
<p>${esc(r.meta.dataset)}: ${r.meta.candles.toLocaleString('en-US')} candles, ${day(r.meta.from)} to ${day(r.meta.to)}; parameters ${esc(JSON.stringify(r.meta.params))}; fee rate ${esc(r.meta.feeRate)}, slippage ${r.meta.slippageBps} bps.</p>
<div class="grid">${rows.map(([k, v]) => `<div class="m">${esc(k)}<b>${esc(v)}</b></div>`).join('')}</div>
<h2>Price, entries and exits</h2><div id="candles" data-chart class="chart"></div>
<h2>Equity</h2><div id="equity" data-chart class="chart small"></div>
<h2>Drawdown (%)</h2><div id="drawdown" data-chart class="chart small"></div>
<h2>Trades (latest ${trades.length} of ${r.trades.length})</h2>
<table id="trades"><thead><tr><th>Entry</th><th>Exit</th><th>Entry price</th><th>Exit price</th><th>Quantity</th><th>Fees</th><th>PnL</th></tr></thead><tbody>
${trades.map((t) => `<tr><td>${day(t.entryTime)}</td><td>${day(t.exitTime)}</td><td>${esc(t.entryPrice)}</td><td>${esc(t.exitPrice)}</td><td>${esc(t.quantity)}</td><td>${esc(t.fees)}</td><td class="${Number(t.pnl) >= 0 ? 'pos' : 'neg'}">${esc(t.pnl)}</td></tr>`).join('\n')}
</tbody></table>
<script>${chartLibrary()}</script>
<script>
try {
  var LC = window.LightweightCharts;
  // A fixed locale: the browser's default follows LANG, and under LANG=C.UTF-8 Chromium reports
  // "en-US@posix", which Intl refuses, so every chart would stay blank.
  var opts = { autoSize: true, localization: { locale: 'en-US' }, layout: { background: { color: '#ffffff' }, textColor: '#333' }, timeScale: { timeVisible: true } };
  var c1 = LC.createChart(document.getElementById('candles'), opts);
  var candles = c1.addSeries(LC.CandlestickSeries, {});
  candles.setData(${safeJson(bars)});
  LC.createSeriesMarkers(candles, ${safeJson(markers)});
  c1.timeScale().fitContent();
  var c2 = LC.createChart(document.getElementById('equity'), opts);
  c2.addSeries(LC.LineSeries, { color: '#1565c0' }).setData(${safeJson(equity)});
  c2.timeScale().fitContent();
  var c3 = LC.createChart(document.getElementById('drawdown'), opts);
  c3.addSeries(LC.AreaSeries, { lineColor: '#c62828', topColor: 'rgba(198,40,40,0.1)', bottomColor: 'rgba(198,40,40,0.4)' }).setData(${safeJson(dd)});
  c3.timeScale().fitContent();
  document.body.dataset.rendered = 'ok';
} catch (e) {
  document.body.dataset.rendered = 'error: ' + (e && e.message ? e.message : String(e));
}
</script>
</body></html>
`;
}
