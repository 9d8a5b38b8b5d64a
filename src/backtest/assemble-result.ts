// The result of a run once the replay is over: the run's figures, per symbol, the trade hash, the holdings.
import { createHash } from 'node:crypto';
import { Decimal, ZERO } from '../market/decimal.js';
import type { Portfolio } from '../portfolio/portfolio.js';
import type { Lane } from './lanes.js';
import type { BacktestFill, BacktestResult, BacktestTrade, SymbolResult } from './result.js';

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

/** Balances by coin and positions by symbol, as decimal strings. */
export function finalHoldings(portfolio: Portfolio): BacktestResult['portfolio'] {
  return {
    cash: Object.fromEntries(Object.entries(portfolio.allCash()).map(([c, v]) => [c, v.toFixed()])),
    positions: Object.fromEntries(portfolio.positions().map((p) => [p.symbol, p.quantity.toFixed()])),
  };
}
