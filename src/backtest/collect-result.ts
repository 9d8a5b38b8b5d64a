// The backtest's records (intents, denials and the first of each, fills, round trips) as a subscriber of
// the pipeline's events.
import type { Trader } from '../execution/trader.js';
import { isDust } from '../market/dust.js';
import type { BacktestFill, FirstDenial, IntentOutcome } from './result.js';
import { RoundTrips } from './round-trips.js';

/** Step 2: the backtest's records, as a subscriber of the pipeline's events. */
export function collectResult(trader: Trader): {
  intents: IntentOutcome[];
  denials: Record<string, number>;
  firstDenials: Record<string, FirstDenial>;
  fills: BacktestFill[];
  trips: RoundTrips;
} {
  const intents: { -readonly [K in keyof IntentOutcome]: IntentOutcome[K] }[] = [];
  const denials: Record<string, number> = {};
  // The first refusal of each code, with its sentence: what a count alone cannot tell.
  const firstDenials: Record<string, FirstDenial> = {};
  const fills: BacktestFill[] = [];
  const trips = new RoundTrips((symbol, qty) => isDust(trader.market.rules(symbol), qty));
  trader.subscribe((e) => {
    switch (e.type) {
      case 'intent':
        intents.push({
          ts: e.ts,
          symbol: e.intent.symbol,
          side: e.intent.side,
          type: e.intent.type,
          tag: e.intent.tag,
          approved: true,
        });
        break;
      case 'denied': {
        const last = intents[intents.length - 1];
        if (last !== undefined) {
          last.approved = false;
          last.code = e.code;
        }
        denials[e.code] = (denials[e.code] ?? 0) + 1;
        firstDenials[e.code] ??= {
          ts: e.ts,
          symbol: e.intent.symbol,
          message: e.message,
          tag: e.intent.tag,
          ...(e.blockedBy === undefined ? {} : { blockedBy: e.blockedBy }),
        };
        break;
      }
      case 'order':
        if (e.outcome.status === 'rejected') {
          const code = `VENUE_${e.outcome.code}`;
          denials[code] = (denials[code] ?? 0) + 1;
          firstDenials[code] ??= { ts: e.ts, symbol: e.intent.symbol, message: e.outcome.message };
        }
        break;
      case 'fill':
        fills.push({
          ts: e.fill.ts,
          symbol: e.fill.symbol,
          side: e.fill.side,
          price: e.fill.price.toFixed(),
          size: e.fill.size.toFixed(),
          fee: e.fill.fee.toFixed(),
          liquidity: e.fill.liquidity,
          tag: e.fill.tag,
        });
        trips.add(e.fill);
        break;
      default:
        break;
    }
  });
  return { intents, denials, firstDenials, fills, trips };
}
