// The sweep's page (sweep.html): a sortable table of the runs and, for two parameters, a heatmap of the chosen
// metric.
import { counted } from '../market/spelling.js';
import { esc, num, page, pct } from './report-page.js';
import { sweepSymbols, type SortKey, type SweepRow } from './sweep.js';
import type { OverfittingVerdict } from './overfitting.js';

/** The metric columns of the runs table: name, how to read it from a run, how to show it. */
const COLUMNS: readonly (readonly [string, (r: SweepRow) => number | undefined, (x: number) => string])[] = [
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

/** A run a row: its parameters, then its metrics (each cell keeps its value in data-v for sorting). */
function runRows(rows: readonly SweepRow[], keys: readonly string[], symbols: readonly string[]): string {
  const td = (v: number | undefined, f: (x: number) => string) =>
    v === undefined
      ? '<td data-v="">error</td>'
      : `<td data-v="${Number.isFinite(v) ? v : v > 0 ? 1e308 : -1e308}">${f(v)}</td>`;
  // Each symbol's realised PnL, a decimal string as the run wrote it.
  const pnl = (r: SweepRow, s: string) => {
    const v = r.bySymbol?.[s]?.pnl ?? '';
    return `<td data-v="${esc(v)}">${esc(v)}</td>`;
  };
  return rows
    .map(
      (r) =>
        `<tr>${keys.map((k) => `<td data-v="${esc(String(r.params[k]))}">${esc(String(r.params[k]))}</td>`).join('')}${COLUMNS.map(([, get, f]) => td(get(r), f)).join('')}${symbols.map((s) => pnl(r, s)).join('')}</tr>`,
    )
    .join('\n');
}

/** The values a parameter takes in the sweep, numbers in numeric order. */
const valuesOf = (rows: readonly SweepRow[], key: string) =>
  [...new Set(rows.map((r) => String(r.params[key])))].sort(
    (a, b) => Number(a) - Number(b) || a.localeCompare(b),
  );

/** The metric over the two parameters: a cell per pair, red (worst) to green (best). */
function heatmap(rows: readonly SweepRow[], kx: string, ky: string, metric: SortKey): string {
  const xs = valuesOf(rows, kx);
  const ys = valuesOf(rows, ky);
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
  const fmt = COLUMNS.find(([n]) => n === metric)?.[2] ?? num;
  return `<h2>${esc(metric)} by ${esc(kx)} and ${esc(ky)}</h2>
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

const SORT_SCRIPT = `<script>
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

/** The overfitting verdict of the winner: its sentence and the figures behind it. */
export function verdictSection(v: OverfittingVerdict): string {
  const d = v.deflatedSharpe;
  const tiles: [string, string][] = [
    [
      'deflated Sharpe ratio',
      `${d.dsr.toFixed(3)} (${d.significant ? 'significant' : 'not significant'} at 95%)`,
    ],
    ['trials', String(d.trials)],
    [
      'winner Sharpe / expected max of luck (per period)',
      `${d.sharpe.toFixed(4)} / ${d.expectedMaxSharpe.toFixed(4)}`,
    ],
    ['skewness, kurtosis, periods', `${d.skewness.toFixed(2)}, ${d.kurtosis.toFixed(2)}, ${d.periods}`],
    [
      'PBO (CSCV)',
      v.pbo === undefined
        ? 'not measured'
        : `${pct(v.pbo.pbo)} over ${v.pbo.splits} splits of ${v.pbo.blocks} blocks`,
    ],
  ];
  if (v.walkForward !== undefined)
    tiles.push(
      [
        'walk-forward in sample',
        `CAGR ${pct(v.walkForward.inSample.cagr)}, Sharpe ${num(v.walkForward.inSample.sharpe)}`,
      ],
      [
        'walk-forward out of sample',
        `CAGR ${pct(v.walkForward.outOfSample.cagr)}, Sharpe ${num(v.walkForward.outOfSample.sharpe)} (${v.walkForward.windows} windows)`,
      ],
    );
  return `<h2>Overfitting verdict</h2>
<p id="verdict" data-overfit="${v.overfit}">${esc(v.sentence)}</p>
<table id="verdict-figures"><tbody>${tiles.map(([k, x]) => `<tr><th>${esc(k)}</th><td>${esc(x)}</td></tr>`).join('')}</tbody></table>`;
}

/** A sortable table of the sweep's runs and, for two parameters, a heatmap of the chosen metric. */
export function renderSweepReport(
  rows: readonly SweepRow[],
  metric: SortKey,
  title: string,
  verdict?: OverfittingVerdict,
  /** How the rows are ordered, when not by `metric` (a search ranks by its loss). */
  rankedBy: string = metric,
): string {
  const keys = Object.keys(rows[0]?.params ?? {});
  const symbols = sweepSymbols(rows);
  const over =
    symbols.length > 1
      ? ` Each run trades ${symbols.map(esc).join(', ')} in one account (as a backtest of several symbols): the metrics are the account's, then each symbol's realised PnL.`
      : '';
  const html = `<h1>${esc(title)}</h1>
<p>${counted(rows.length, 'run')}, ranked by ${esc(rankedBy)}.${over} Click a column to sort.</p>
${verdict === undefined ? '' : verdictSection(verdict)}
${keys.length === 2 ? heatmap(rows, keys[0] as string, keys[1] as string, metric) : ''}
<h2>Runs</h2>
<table id="runs"><thead><tr>${[...keys, ...COLUMNS.map(([n]) => n), ...symbols.map((s) => `pnl ${s}`)].map((h) => `<th data-sort>${esc(h)}</th>`).join('')}</tr></thead><tbody>
${runRows(rows, keys, symbols)}
</tbody></table>
${SORT_SCRIPT}`;
  return page(title, '', html);
}
