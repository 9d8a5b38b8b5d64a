// The live feeds a bot keeps its pipeline's market state with: the rules, each price (which also marks the
// portfolio and runs the exits), the session and the suspensions of the bot's pairs.
import { merge, share, shareReplay, tap, type Observable } from 'rxjs';
import type { DeliveryStatus, Ticker } from '../api/index.js';
import type { FeedHub } from '../feeds/hub.js';
import type { Fresh } from '../feeds/poll.js';
import { Decimal } from '../market/decimal.js';
import type { SessionState } from '../market/sessions.js';
import type { TradeCategory } from '../strategy/intent.js';
import type { Trader } from './trader.js';

/** The live feeds a bot keeps its market state with. */
export interface MarketFeeds {
  readonly instruments$: Observable<unknown>;
  readonly tickers$: Observable<Fresh<Ticker>>;
  readonly session$: Observable<SessionState>;
  readonly suspensions$: Observable<unknown>;
}

const SPOT = 'SPOT' as const;

/** The feeds of a bot's symbols on the hub; `onTicker` hears each price's poll time (the feed's age). */
export function marketFeeds(
  o: {
    readonly hub: FeedHub;
    readonly trader: Trader;
    readonly category: TradeCategory;
    readonly symbols: readonly string[];
    /** The company code of each Reality pair of the bot, by symbol. */
    readonly realityCodes: ReadonlyMap<string, string>;
  },
  /** Each ticker poll: its time, the symbol and the venue's last traded price. */
  onTicker: (at: number, symbol: string, lastPrice: string) => void,
): MarketFeeds {
  const { hub, trader } = o;
  const market = trader.market;
  const instruments$ = hub.instruments$(o.category).pipe(
    tap((f) => {
      for (const s of o.symbols) {
        const r = f.value.get(s);
        if (r) market.setRules(s, r);
      }
    }),
    // A late subscriber (the candles' readiness, a strategy) hears the rules already known: the hub's
    // replay reaches only the first subscriber of a plain share.
    shareReplay({ bufferSize: 1, refCount: true }),
  );
  const tickers$ = merge(
    ...o.symbols.map((s) =>
      hub.tickers$(SPOT, s).pipe(
        tap((f) => {
          const t = f.value;
          const q = market.quote(s);
          q.last = t.lastPrice;
          q.bid = t.bid1Price;
          q.ask = t.ask1Price;
          // The poll's time: the gate measures the data's age from it.
          q.ts = f.at;
          q.deliveryStatus = t.deliveryStatus as DeliveryStatus | undefined;
          const p = new Decimal(t.lastPrice);
          if (p.gt(0)) trader.mark(s, p, f.at);
          onTicker(f.at, s, t.lastPrice);
        }),
      ),
    ),
  ).pipe(share());
  // The session is said at a transition only: a subscriber after the first must hear the current one, or
  // it waits hours for the next transition (a bot started after another got no candle until the open).
  const session$ = hub.session$().pipe(
    tap((s) => market.setSession(s)),
    shareReplay({ bufferSize: 1, refCount: true }),
  );
  // A Reality pair's suspension is asked by its company code (the gate reads it for Reality pairs only).
  const suspensions$ = merge(
    ...[...o.realityCodes].map(([s, code]) =>
      hub.suspension$(code).pipe(tap((f) => market.setSuspended(s, f.value.suspended))),
    ),
  );
  return { instruments$, tickers$, session$, suspensions$ };
}
