// The end of a run's bots: each stopped with its orders in flight drained, within the deadline, then one summary
// line per bot (its orders, fills, PnL, fees, equity and holdings): counts the deployment's (across restarts) with
// this start's, money exact in the fields and rounded by formatMoney in the sentence, as every surface does.
import type { LiveBotStatus } from '../execution/live-bot.js';
import { formatMoney } from '../market/decimal.js';
import { counted } from '../market/spelling.js';
import type { LogFields } from './logger.js';

/** A bot slot as the drain sees it: marked stopping (no restart from here), then its bot stopped. */
interface Draining {
  stopping: boolean;
  readonly bot?: { stop(): Promise<void> } | undefined;
}

/** Stops every bot and waits for its orders in flight; answers whether the deadline passed first. */
export function drainBots(slots: readonly Draining[], timeoutMs: number): Promise<boolean> {
  const drain = Promise.all(
    slots.map(async (s) => {
      s.stopping = true;
      await s.bot?.stop();
    }),
  );
  return Promise.race([
    drain.then(() => false),
    new Promise<boolean>((r) => setTimeout(() => r(true), timeoutMs).unref()),
  ]);
}

/** The fields of a bot's summary log line; `what` says it in one sentence. */
export function botSummary(st: LiveBotStatus): LogFields {
  const q = st.quoteCoin;
  const money = (v: string) => formatMoney(v, q);
  const since = st.sinceStart;
  return {
    bot: st.name,
    what:
      `${st.name}: ${counted(st.orders, 'order')}, ${counted(st.fills, 'fill')} (${since.orders} and ${since.fills} since this start), ` +
      `realised ${money(st.realisedPnl)}, unrealised ${money(st.unrealisedPnl)}, fees ${money(st.fees)}, ` +
      `net ${money(st.net)}, equity ${money(st.equity)}` +
      (st.positions.length > 0
        ? `; holds ${st.positions.map((p) => `${p.quantity} ${p.baseCoin}`).join(', ')}`
        : ''),
    intents: st.intents,
    orders: st.orders,
    fills: st.fills,
    denials: st.denials,
    sinceStart: { ...since },
    realisedPnl: st.realisedPnl,
    unrealisedPnl: st.unrealisedPnl,
    fees: st.fees,
    net: st.net,
    equity: st.equity,
    quoteCoin: q,
  };
}
