// The result of a run once the replay is over: the run's figures, per symbol, the trade hash, the holdings.
import { createHash } from 'node:crypto';
import { Decimal, ZERO } from '../market/decimal.js';
import { isDust } from '../market/dust.js';
import { dustPositions } from '../portfolio/dust-view.js';
import type { Portfolio } from '../portfolio/portfolio.js';
import type { Lane } from './lanes.js';
import type { BacktestFill, BacktestResult, BacktestTrade, OpenPosition, SymbolResult } from './result.js';
import type { RoundTrips } from './round-trips.js';

/** Per-symbol figures of a run: candles, fills, round trips, realised PnL, fees, holdings. */
export function symbolResults(
  lanes: readonly Lane[],
  fills: readonly BacktestFill[],
  trades: readonly BacktestTrade[],
  portfolio: Portfolio,
): Record<string, SymbolResult> {
  const out: Record<string, SymbolResult> = {};
  for (const l of lanes) {
    const mine = trades.filter((t) => t.symbol === l.symbol);
    const myFills = fills.filter((f) => f.symbol === l.symbol);
    out[l.symbol] = {
      candles: l.candles,
      fills: myFills.length,
      trades: mine.length,
      wins: mine.filter((t) => new Decimal(t.pnl).gt(0)).length,
      pnl: mine.reduce((a, t) => a.plus(t.pnl), ZERO).toFixed(),
      fees: myFills.reduce((a, f) => a.plus(f.fee), ZERO).toFixed(),
      position: portfolio.position(l.symbol).quantity.toFixed(),
      ...dustOf(l, portfolio),
      lastClose: new Decimal(l.lastClose).toFixed(),
    };
  }
  return out;
}

/**
 * The trade hash: SHA-256 of the fill list (time, side, price, size, fee; and the symbol when a run spans
 * several). Same inputs, same hash.
 */
export function tradeHashOf(fills: readonly BacktestFill[], withSymbol = false): string {
  return createHash('sha256')
    .update(
      fills
        .map((f) => `${withSymbol ? `${f.symbol},` : ''}${f.ts},${f.side},${f.price},${f.size},${f.fee}`)
        .join('\n'),
    )
    .digest('hex');
}

/** A symbol's dust at the end, when its position is dust (src/market/dust.ts): the `dust` field of its figures. */
function dustOf(l: Lane, portfolio: Portfolio): { dust?: string } {
  const q = portfolio.position(l.symbol).quantity;
  return isDust(l.rules, q) ? { dust: q.toFixed() } : {};
}

/**
 * Balances by coin and positions by symbol, as decimal strings; the positions that are dust also under `dust`
 * (absent when none is).
 */
export function finalHoldings(portfolio: Portfolio, lanes: readonly Lane[]): BacktestResult['portfolio'] {
  const rules = new Map(lanes.map((l) => [l.symbol, l.rules]));
  const dust = dustPositions(portfolio.positions(), (s) => rules.get(s));
  return {
    cash: Object.fromEntries(Object.entries(portfolio.allCash()).map(([c, v]) => [c, v.toFixed()])),
    positions: Object.fromEntries(portfolio.positions().map((p) => [p.symbol, p.quantity.toFixed()])),
    ...(dust.length === 0
      ? {}
      : { dust: Object.fromEntries(dust.map((p) => [p.symbol, p.quantity.toFixed()])) }),
  };
}

/**
 * The positions still open when the data ended, each marked at its symbol's last close: unrealised PnL after
 * the fees paid so far (what the trade would count if it closed at the mark with no exit fee), so that the
 * final equity is the capital plus the closed trades' PnL plus these.
 */
export function openPositionsOf(trips: RoundTrips, lanes: readonly Lane[]): OpenPosition[] {
  const lastClose = new Map(lanes.map((l) => [l.symbol, new Decimal(l.lastClose || 0)]));
  return trips.openTrips().map((t) => {
    const mark = lastClose.get(t.symbol) ?? ZERO;
    const pnl = t.quantity.mul(mark).plus(t.sellValue).minus(t.buyCost).minus(t.fees);
    const cost = t.quantity.abs().mul(t.entryPrice);
    return {
      symbol: t.symbol,
      entryTime: t.entryTime,
      entryTag: t.entryTag,
      size: t.quantity.toFixed(),
      entryPrice: t.entryPrice,
      mark: mark.toFixed(),
      unrealisedPnl: pnl.toFixed(),
      unrealisedReturn: cost.gt(0) ? pnl.div(cost).toDecimalPlaces(6).toFixed() : '0',
    };
  });
}
