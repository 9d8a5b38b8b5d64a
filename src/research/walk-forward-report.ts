// The walk-forward page (walk-forward.html): in-sample against out-of-sample per window, the chosen
// parameters, and the stitched out-of-sample equity.
import type { Instrument } from '../api/index.js';
import type { EquityCurvePoint } from '../backtest/result.js';
import { pickParams } from '../strategy/params.js';
import {
  ascending,
  chartLibrary,
  esc,
  instrumentFormat,
  num,
  page,
  pct,
  safeJson,
  tileGrid,
  type ZoneClock,
} from './report-page.js';
import type { WalkForwardResult } from './walk-forward.js';

/** Parameters in words: "fast 10, slow 100". */
const named = (ps: [string, unknown][]) =>
  ps.map(([k, v]) => `${k} ${typeof v === 'string' ? v : JSON.stringify(v)}`).join(', ');

/** A window a row: its in-sample and out-of-sample dates, the parameters chosen, and both sides' figures. */
function windowRows(wf: WalkForwardResult, clock: ZoneClock, swept: readonly string[] | undefined): string {
  const day = (ms: number) => clock.text(ms).slice(0, 10);
  const chosen = (p: Record<string, unknown>) => named(Object.entries(pickParams(p, swept)));
  return wf.steps
    .map(
      (s) =>
        `<tr><td class="nw">${day(s.window.inSample.from)} to ${day(s.window.inSample.to)}</td><td class="nw">${day(s.window.outOfSample.from)} to ${day(s.window.outOfSample.to)}</td><td>${esc(chosen(s.best))}</td><td>${s.inSample ? pct(s.inSample.totalReturn) : ''}</td><td>${s.inSample ? num(s.inSample.sharpe) : ''}</td><td>${s.inSample ? s.inSample.trades : ''}</td><td>${pct(s.outOfSample.totalReturn)}</td><td>${num(s.outOfSample.sharpe)}</td><td>${s.outOfSample.trades}</td><td>${pct(s.outOfSample.exposure)}</td></tr>`,
    )
    .join('\n');
}

/** In-sample against out-of-sample per window, the chosen parameters, and the stitched equity. */
export function renderWalkForwardReport(
  wf: WalkForwardResult,
  title: string,
  instrument?: Instrument,
  /** The parameters the grid varied: the table shows these; the others are named once as fixed. */
  swept?: readonly string[],
): string {
  const { clock, money } = instrumentFormat(instrument);
  const fixed = Object.entries(wf.steps[0]?.best ?? {}).filter(
    ([k]) => swept !== undefined && !swept.includes(k),
  );
  const equity = ascending(
    wf.equity.map((p: EquityCurvePoint) => ({
      time: clock.chart(p.ts),
      value: Math.round(p.equity * 100) / 100,
    })),
  );
  const m = wf.metrics;
  const html = `<h1>${esc(title)}</h1>
<p>Each out-of-sample window is warmed up on the ${(wf.warmupMs / 86_400_000).toFixed(0)} days before it (candles the strategy sees but never trades). Times in ${esc(clock.named)}.${fixed.length > 0 ? ` Fixed parameters: ${esc(named(fixed))}.` : ''}</p>
${tileGrid([
  ['Stitched return', pct(m.totalReturn)],
  ['Sharpe', num(m.sharpe)],
  ['Max drawdown', pct(m.maxDrawdown)],
  ['Trades (all windows)', String(m.trades)],
  ['Win rate', pct(m.winRate)],
  ['In the market', pct(m.exposure)],
  ['Final equity', `${money(m.finalEquity)} (from ${wf.capital})`],
])}
<h2>Stitched out-of-sample equity</h2><div id="equity" data-chart class="chart small"></div>
<h2>Windows: in-sample against out-of-sample</h2>
<table id="windows"><thead><tr><th>In-sample</th><th>Out-of-sample</th><th>Chosen parameters</th><th>IS return</th><th>IS Sharpe</th><th>IS trades</th><th>OOS return</th><th>OOS Sharpe</th><th>OOS closed trades</th><th>OOS in the market</th></tr></thead><tbody>
${windowRows(wf, clock, swept)}
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
