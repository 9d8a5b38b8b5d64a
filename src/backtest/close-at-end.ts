// `closeAtEnd`: the positions still open when the data ends exit at the last close through the pipeline, as
// freqtrade's backtests do: a market sell tagged `end_of_backtest` that the gate judges and the fee is charged on.
import { Decimal, aboveZero } from '../market/decimal.js';
import { isDust } from '../market/dust.js';
import type { Lane } from './lanes.js';
import type { BacktestPipeline } from './pipeline.js';
import type { EquityCurve } from './equity-curve.js';

/**
 * Sells each symbol's position at its last close: the venue is shown one more bar, at the instant the last
 * candle closed, flat at that close, so the market sell fills there (minus the slippage) and nowhere else. An
 * exit the gate denies (a closed session, resting limit sells that hold the position) leaves the position
 * open, and the result says so. The equity is sampled again after it: the headline counts the exit's fee.
 */
export async function closeAtEnd(
  p: BacktestPipeline,
  lanes: readonly Lane[],
  step: number,
  equity: EquityCurve,
): Promise<void> {
  const { trader, venue, clock, portfolio } = p;
  let sold = false;
  for (const l of lanes) {
    const held = portfolio.position(l.symbol).quantity;
    // Dust is no trade: no order could sell it (src/market/dust.ts); the result shows it apart.
    if (!aboveZero(held) || isDust(l.rules, held) || l.candles === 0) continue;
    const at = l.cur.t + step;
    Object.assign(l.cur, {
      t: at,
      open: l.lastClose,
      high: l.lastClose,
      low: l.lastClose,
      close: l.lastClose,
    });
    l.cur.known = true;
    clock.set(Math.max(clock.now(), at));
    venue.setTime(at);
    await trader.exit(
      {
        symbol: l.symbol,
        reason: 'end_of_backtest',
        quantity: held,
        trigger: undefined,
        sentence: `the data ended: closed at the last close ${new Decimal(l.lastClose).toFixed()} (closeAtEnd)`,
      },
      at,
    );
    await trader.idle();
    await trader.syncFills();
    l.cur.known = false;
    sold = true;
  }
  if (!sold) return;
  for (const l of lanes) portfolio.mark(l.symbol, new Decimal(l.lastClose));
  const ts = clock.now();
  const e = trader.sampleEquity(ts).toNumber();
  if (equity.length > 0 && equity.ts(equity.length - 1) >= ts) equity.setLastEquity(e);
  else equity.push(ts, e);
}
