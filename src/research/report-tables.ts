// The tearsheet's tables: by symbol, by entry tag, by exit reason, the denials, and every trade (drawn a page
// at a time).
import type { BacktestResult, BacktestTrade } from '../backtest/result.js';
import { Decimal } from '../market/decimal.js';
import { formatDuration } from '../market/duration.js';
import { esc, pct, safeJson, type InstrumentFormat } from './report-page.js';
import type { Excursion } from './run-job.js';
import { hasShorts, sideSplit } from './sides.js';

/** Rows of the trade table drawn at once; the pager walks through all of them. */
export const TRADES_PER_PAGE = 250;

/** A round trip as the tables show it: numbered, with its return. */
export interface TradeRecord extends BacktestTrade {
  readonly n: number;
  readonly pnlPct: number;
  readonly excursion: Excursion | undefined;
}

/** The run's round trips, numbered, each with its return (its entry tag and exit reason are the trade's). */
export function tradeRecords(r: BacktestResult, excursions: readonly Excursion[] | undefined): TradeRecord[] {
  return r.trades.map((x, i) => {
    const cost = new Decimal(x.entryPrice).mul(x.quantity);
    return {
      ...x,
      n: i + 1,
      pnlPct: cost.gt(0) ? new Decimal(x.pnl).div(cost).toNumber() : 0,
      excursion: excursions?.[i],
    };
  });
}

/** Fees of every fill (an open position's entry too, as the Fees tile), PnL of the closed round trips. */
export function symbolTable(r: BacktestResult, { money }: InstrumentFormat): string {
  return `<table id="symbols"><thead><tr><th>Symbol</th><th>Candles</th><th>Fills</th><th>Trades</th><th>Win rate</th><th>Fees</th><th>Realised PnL</th><th>Position</th></tr></thead><tbody>${Object.entries(
    r.bySymbol,
  )
    .map(
      ([s, x]) =>
        `<tr><td>${esc(s)}</td><td>${x.candles}</td><td>${x.fills}</td><td>${x.trades}</td><td>${x.trades > 0 ? pct(x.wins / x.trades) : ''}</td><td>${money(x.fees)}</td><td class="${new Decimal(x.pnl).gte(0) ? 'pos' : 'neg'}">${money(x.pnl)}</td><td>${esc(x.position)}</td></tr>`,
    )
    .join('')}</tbody></table>`;
}

/** Closed trades by side (long / short): count, win rate, PnL after fees and fees (a run with shorts). */
export function sideTable(r: BacktestResult, { money }: InstrumentFormat): string {
  if (!hasShorts(r.trades, r.openPositions)) return '';
  const rows = sideSplit(r.trades)
    .map(
      (x) =>
        `<tr><td>${x.side}</td><td>${x.trades}</td><td>${x.trades > 0 ? pct(x.wins / x.trades) : ''}</td><td class="${x.pnl.gte(0) ? 'pos' : 'neg'}">${money(x.pnl.toFixed())}</td><td>${money(x.fees.toFixed())}</td></tr>`,
    )
    .join('');
  return `<h2>Long and short</h2><table id="sides"><thead><tr><th>Side</th><th>Closed trades</th><th>Win rate</th><th>PnL</th><th>Fees</th></tr></thead><tbody>${rows}</tbody></table>`;
}

/** Trades, win rate, mean return and PnL by exit reason. */
export function reasonTable(trades: readonly TradeRecord[], { money }: InstrumentFormat): string {
  const reasons = new Map<string, { n: number; wins: number; pnl: Decimal; pct: number }>();
  for (const x of trades) {
    const g = reasons.get(x.exitReason) ?? { n: 0, wins: 0, pnl: new Decimal(0), pct: 0 };
    g.n++;
    if (new Decimal(x.pnl).gt(0)) g.wins++;
    g.pnl = g.pnl.plus(x.pnl);
    g.pct += x.pnlPct;
    reasons.set(x.exitReason, g);
  }
  const rows = [...reasons.entries()]
    .map(
      ([k, g]) =>
        `<tr><td>${esc(k || '(untagged)')}</td><td>${g.n}</td><td>${pct(g.wins / g.n)}</td><td>${pct(g.pct / g.n)}</td><td class="${g.pnl.gte(0) ? 'pos' : 'neg'}">${money(g.pnl.toFixed())}</td></tr>`,
    )
    .join('');
  return `<table id="reasons"><thead><tr><th>Exit reason</th><th>Trades</th><th>Win rate</th><th>Mean PnL %</th><th>PnL</th></tr></thead><tbody>${rows}</tbody></table>`;
}

/**
 * Closed trades, win rate, PnL and mean duration by entry tag; a tag whose position is still open counts it
 * apart (its PnL is unrealised, in the open positions table), so the win rate is of closed trades only.
 */
export function tagTable(
  r: BacktestResult,
  trades: readonly TradeRecord[],
  { money }: InstrumentFormat,
): string {
  const tags = new Map<string, { n: number; wins: number; pnl: Decimal; ms: number; open: number }>();
  const group = (tag: string) => {
    const g = tags.get(tag) ?? { n: 0, wins: 0, pnl: new Decimal(0), ms: 0, open: 0 };
    tags.set(tag, g);
    return g;
  };
  for (const x of trades) {
    const g = group(x.entryTag);
    g.n++;
    if (new Decimal(x.pnl).gt(0)) g.wins++;
    g.pnl = g.pnl.plus(x.pnl);
    g.ms += x.exitTime - x.entryTime;
  }
  for (const p of r.openPositions) group(p.entryTag).open++;
  const rows = [...tags.entries()]
    .map(
      ([k, g]) =>
        `<tr><td>${esc(k || '(untagged)')}</td><td>${g.n}</td><td>${g.open}</td><td>${g.n > 0 ? pct(g.wins / g.n) : ''}</td><td class="${g.pnl.gte(0) ? 'pos' : 'neg'}">${money(g.pnl.toFixed())}</td><td>${g.n > 0 ? formatDuration(g.ms / g.n) : ''}</td></tr>`,
    )
    .join('');
  return `<table id="tags"><thead><tr><th>Entry tag</th><th>Closed trades</th><th>Open</th><th>Win rate (closed)</th><th>Realised PnL</th><th>Mean duration</th></tr></thead><tbody>${rows}</tbody>${rows === '' ? '<tfoot><tr><td colspan="6">no trade</td></tr></tfoot>' : ''}</table>`;
}

/** The positions still open at the end, marked at the last close: what the headline's return includes. */
export function openPositionTable(r: BacktestResult, f: InstrumentFormat): string {
  const { clock, money, price, quantity } = f;
  const rows = r.openPositions
    .map(
      (p) =>
        `<tr><td>${esc(p.symbol)}</td><td>${quantity(p.size)}</td><td>${price(p.entryPrice)}</td><td>${price(p.mark)}</td><td class="${new Decimal(p.unrealisedPnl).gte(0) ? 'pos' : 'neg'}">${money(p.unrealisedPnl)}</td><td>${pct(new Decimal(p.unrealisedReturn).toNumber())}</td><td class="nw">${clock.text(p.entryTime)}</td><td>${esc(p.entryTag)}</td></tr>`,
    )
    .join('');
  return `<table id="open-positions"><thead><tr><th>Symbol</th><th>Size</th><th>Entry price</th><th>Mark (last close)</th><th>Unrealised PnL</th><th>Unrealised %</th><th>Entry</th><th>Entry tag</th></tr></thead><tbody>${rows}</tbody>${rows === '' ? '<tfoot><tr><td colspan="8">none: every position was closed</td></tr></tfoot>' : ''}</table>`;
}

/** Each code the gate or the venue refused with: how often, and its first sentence. */
export function denialTable(r: BacktestResult, { clock }: InstrumentFormat): string {
  const rows = Object.entries(r.denials)
    .map(([code, n]) => {
      const d = r.firstDenials[code];
      return `<tr><td>${esc(code)}</td><td>${n}</td><td class="nw">${d ? clock.text(d.ts) : ''}</td><td>${d ? esc(d.symbol) : ''}</td><td class="why">${d ? esc(d.message) : ''}</td></tr>`;
    })
    .join('');
  return `<table id="denials"><thead><tr><th>Code</th><th>Intents</th><th>First</th><th>Symbol</th><th class="why">First sentence</th></tr></thead><tbody>${rows}</tbody>${rows === '' ? '<tfoot><tr><td colspan="5">none: every intent went to the venue</td></tr></tfoot>' : ''}</table>`;
}

/** The cells of the trade table, one array of text per trade. */
function tradeCells(trades: readonly TradeRecord[], f: InstrumentFormat): string[][] {
  const { clock, money, price, quantity } = f;
  return trades.map((x) => {
    const e = x.excursion;
    return [
      String(x.n),
      clock.text(x.entryTime),
      clock.text(x.exitTime),
      formatDuration(x.exitTime - x.entryTime),
      x.entryTag,
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
}

/**
 * Every trade, newest first, with a pager. Rows as data, drawn a page at a time: 40,000 trades as HTML rows
 * would take the browser a minute.
 */
export function tradesSection(trades: readonly TradeRecord[], f: InstrumentFormat): string {
  return `<h2>Trades (all ${trades.length})</h2>
<p id="pager"><button id="prev">&larr; newer</button> <span id="page"></span> <button id="next">older &rarr;</button></p>
<div class="scroll"><table id="trades" data-total="${trades.length}"><thead><tr><th>#</th><th>Entry</th><th>Exit</th><th>Duration</th><th>Entry reason</th><th>Exit reason</th><th>Entry price</th><th>Exit price</th><th>Quantity</th><th>Fees</th><th>PnL</th><th>PnL %</th><th>MAE</th><th>MFE</th></tr></thead><tbody></tbody></table></div>
<script>
// The trade table: every trade, newest first, ${TRADES_PER_PAGE} to a page.
(function () {
  var rows = ${safeJson(tradeCells(trades, f))};
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
</script>`;
}
