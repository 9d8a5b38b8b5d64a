// The tearsheet's charts: price with entry and exit markers (a view per symbol), equity against buy & hold, and
// drawdown; their series in the exchange's time zone, their panels, and the script that draws them.
import type { BacktestFill, BacktestResult, ChartBar, PlotSeries } from '../backtest/result.js';
import { ascending, esc, safeJson, type ZoneClock } from './report-page.js';
import { MAX_CHART_EQUITY_POINTS, thinEquity } from '../backtest/equity-curve.js';

/** The most markers the price chart draws (documented in backtest/README.md). */
export const MAX_MARKERS = 150;
/** Up to this many markers, a marker of one fill is labelled with its reason. */
export const LABELLED_MARKERS = 24;

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

interface Point {
  readonly time: number;
  readonly value: number;
}

/** A series the strategy plotted (ctx.plot), in chart time; a point without a value is a gap. */
interface PlotView {
  readonly name: string;
  readonly pane: PlotSeries['pane'];
  readonly color: string;
  readonly points: readonly { readonly time: number; readonly value?: number }[];
}

/** The colours of plotted series, in the order the strategy first plotted them (then again from the first). */
const PLOT_COLORS = ['#ef6c00', '#6a1b9a', '#00897b', '#3949ab', '#6d4c41', '#d81b60', '#7cb342'];

/** The price chart of one symbol: its bars, its fills as markers, its plotted series and a caption. */
interface PriceView {
  /** Bars in chart time. */
  readonly bars: readonly ChartBar[];
  readonly markers: readonly Marker[];
  readonly plots: readonly PlotView[];
  readonly caption: string;
}

/** The plotted series of one symbol, in chart time (display only: the exact values are in result.json). */
function plotViews(
  series: Readonly<Record<string, PlotSeries>> | undefined,
  t: (ms: number) => number,
): PlotView[] {
  return Object.entries(series ?? {}).map(([name, s], i) => ({
    name,
    pane: s.pane,
    color: PLOT_COLORS[i % PLOT_COLORS.length] as string,
    points: ascending(
      s.time.map((ms, k) => {
        const v = s.value[k];
        return v === null || v === undefined ? { time: t(ms) } : { time: t(ms), value: Number(v) };
      }),
    ),
  }));
}

/** The series of the tearsheet's charts, in chart time (the zone's wall clock drawn as UTC). */
export interface ReportCharts {
  readonly symbols: readonly string[];
  /** A view per symbol over several symbols (the select switches between them); undefined over one. */
  readonly views: Readonly<Record<string, PriceView>> | undefined;
  /** The view shown first. */
  readonly shown: PriceView;
  readonly equity: readonly Point[];
  /** Buy & hold at each equity sample; empty without a benchmark. */
  readonly bench: readonly Point[];
  /** Drawdown from the running peak, in percent. */
  readonly drawdown: readonly Point[];
  /** How the equity chart was drawn from the curve (every candle's close, thinned past a bound). */
  readonly equityCaption: string;
}

/** The view of one symbol's chart and fills, or of the run's only chart when `symbol` is undefined. */
function priceView(r: BacktestResult, symbol: string | undefined, t: (ms: number) => number): PriceView {
  const chart = symbol === undefined ? r.chart : (r.charts?.[symbol] ?? []);
  const fills = symbol === undefined ? r.fills : r.fills.filter((f) => f.symbol === symbol);
  const candles = symbol === undefined ? r.meta.candles : (r.bySymbol[symbol]?.candles ?? 0);
  const bars = ascending(
    chart.map((b) => ({ time: t(b.time), open: b.open, high: b.high, low: b.low, close: b.close })),
  );
  const markers = chartMarkers(chart, fills, t);
  const plots = plotViews(r.plots?.[symbol ?? r.meta.symbol], t);
  const caption = `${bars.length.toLocaleString('en-US')} bars for ${candles.toLocaleString('en-US')} candles${chart.length > 0 && candles > chart.length ? ` (each bar merges ${Math.round(candles / chart.length)} candles)` : ''}; ${markers.length} markers for ${fills.length} fills (at most ${MAX_MARKERS}: fills on neighbouring bars merge into one marker that shows their count; ${markers.length > LABELLED_MARKERS ? `past ${LABELLED_MARKERS} markers the chart shows no reasons; ` : ''}the reasons are in the tables below).`;
  return { bars, markers, plots, caption };
}

export function reportCharts(
  r: BacktestResult,
  benchmark: readonly number[] | undefined,
  clock: ZoneClock,
): ReportCharts {
  const t = (ms: number) => clock.chart(ms);
  const symbols = r.meta.symbols ?? [];
  const views =
    symbols.length > 1 ? Object.fromEntries(symbols.map((s) => [s, priceView(r, s, t)])) : undefined;
  const shown = views?.[symbols[0] as string] ?? priceView(r, undefined, t);
  // The curve has a point at every candle's close; the chart keeps each bucket's lowest and highest.
  const thin = thinEquity(r.equity, MAX_CHART_EQUITY_POINTS);
  const equity = ascending(
    thin.points.map((p) => ({ time: t(p.ts), value: Math.round(p.equity * 100) / 100 })),
  );
  const bench =
    benchmark && benchmark.length === r.equity.length
      ? ascending(
          thin.indices.map((i) => ({
            time: t(r.equity.ts(i)),
            value: Math.round((benchmark[i] as number) * 100) / 100,
          })),
        )
      : [];
  const n = r.equity.length;
  const equityCaption =
    thin.points.length === n
      ? `The equity at every candle's close (${n.toLocaleString('en-US')} points).`
      : `${thin.points.length.toLocaleString('en-US')} of the ${n.toLocaleString('en-US')} closes drawn (each bucket's lowest and highest); the figures above come from all of them.`;
  let peak = -Infinity;
  const drawdown = equity.map((p) => {
    peak = Math.max(peak, p.value);
    return { time: p.time, value: Math.round(((p.value - peak) / peak) * 10000) / 100 };
  });
  return { symbols, views, shown, equity, bench, drawdown, equityCaption };
}

/** The chart panels: price (with the symbol select over several), equity and drawdown. */
export function chartPanels(c: ReportCharts): string {
  return `<h2>Price, entries and exits${c.views === undefined ? '' : ` of <select id="symbol">${c.symbols.map((s) => `<option>${esc(s)}</option>`).join('')}</select> (one of ${c.symbols.length} symbols)`}</h2>
<p id="chart-caption">${esc(c.shown.caption)}</p>
<div id="candles" data-chart class="chart"></div>
<p id="plot-legend">${plotLegend(c.shown.plots)}</p>
<h2>Equity${c.bench.length > 0 ? ' against buy &amp; hold' : ''}</h2><p>${esc(c.equityCaption)}</p><div id="equity" data-chart class="chart small"></div>
<h2>Drawdown (%)</h2><div id="drawdown" data-chart class="chart small"></div>`;
}

/** The names of the plotted series in their colours, and where each is drawn (the script redraws it per symbol). */
function plotLegend(plots: readonly PlotView[]): string {
  return plots
    .map(
      (p) =>
        `<span style="color:${p.color}">&#9644; ${esc(p.name)}</span> (${p.pane === 'price' ? 'over the price' : 'own panel'})`,
    )
    .join(' &nbsp; ');
}

/** The script that draws the panels (after the chart library's script). */
export function chartScript(c: ReportCharts): string {
  const { views, symbols } = c;
  const { bars, markers } = c.shown;
  return `<script>
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
  var shown = views ? views[${safeJson(symbols[0] ?? '')}] : ${views === undefined ? safeJson({ bars, markers, plots: c.shown.plots }) : 'null'};
  candles.setData(shown.bars);
  // The strategy's own series (ctx.plot): over the candles, or each in a pane of its own below them.
  var plotted = [];
  function drawPlots(plots) {
    plotted.forEach(function (s) { c1.removeSeries(s); });
    while (c1.panes().length > 1) c1.removePane(c1.panes().length - 1);
    var own = 0;
    plotted = plots.map(function (p) {
      var pane = p.pane === 'price' ? 0 : ++own;
      var s = c1.addSeries(LC.LineSeries, { color: p.color, lineWidth: 1, title: p.name, priceLineVisible: false, lastValueVisible: false }, pane);
      s.setData(p.points);
      return s;
    });
    document.getElementById('candles').style.height = (360 + 140 * own) + 'px';
    document.getElementById('plot-legend').innerHTML = plots.map(function (p) {
      var span = document.createElement('span');
      span.style.color = p.color;
      span.textContent = '\u25ac ' + p.name;
      return span.outerHTML + (p.pane === 'price' ? ' (over the price)' : ' (own panel)');
    }).join(' \u00a0 ');
    document.body.dataset.plots = plots.length;
  }
  drawPlots(shown.plots);
  // Markers never stretch the price axis (thousands of them once pushed it to -250).
  var marks = LC.createSeriesMarkers(candles, shown.markers, { autoScale: false });
  c1.timeScale().fitContent();
  if (views) document.getElementById('symbol').addEventListener('change', function (e) {
    var v = views[e.target.value];
    candles.setData(v.bars);
    marks.setMarkers(v.markers);
    drawPlots(v.plots);
    document.getElementById('chart-caption').textContent = v.caption;
    document.body.dataset.markers = v.markers.length;
    document.body.dataset.symbol = e.target.value;
    c1.timeScale().fitContent();
  });
  var c2 = LC.createChart(document.getElementById('equity'), opts);
  c2.addSeries(LC.LineSeries, { color: '#1565c0', title: 'strategy' }).setData(${safeJson(c.equity)});
  var bench = ${safeJson(c.bench)};
  if (bench.length > 0) c2.addSeries(LC.LineSeries, { color: '#9e9e9e', lineWidth: 1, title: 'buy & hold' }).setData(bench);
  c2.timeScale().fitContent();
  var c3 = LC.createChart(document.getElementById('drawdown'), opts);
  c3.addSeries(LC.AreaSeries, { lineColor: '#c62828', topColor: 'rgba(198,40,40,0.1)', bottomColor: 'rgba(198,40,40,0.4)' }).setData(${safeJson(c.drawdown)});
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
}
