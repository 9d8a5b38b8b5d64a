// Reconciliation on start: what the journal says may not have reached the venue is resent under its
// clientOid (a duplicate answer means it had landed), and fills missed while down are pulled through the
// pipeline; the portfolio itself is rebuilt from the fill journal before (`Portfolio.fromFills`).
import { ZERO, type Decimal } from '../market/decimal.js';
import type { Store } from '../store/index.js';
import type { OrderOutcome } from './executor.js';
import type { Trader } from './trader.js';

export interface ReconcileReport {
  readonly resent: readonly OrderOutcome[];
  readonly newFills: number;
}

/** Resends the pending orders of one bot (or all) and pulls the fills of its pairs. */
export async function reconcile(args: {
  store: Store;
  trader: Trader;
  bot?: string | undefined;
}): Promise<ReconcileReport> {
  const pending = args.store.orders
    .pendingOrders()
    .filter((o) => args.bot === undefined || o.bot === args.bot);
  const resent: OrderOutcome[] = [];
  for (const record of pending) resent.push(await args.trader.executor.resend(record));
  trackOpenOrders(args.store, args.trader);
  const newFills = (await args.trader.syncFills()).length;
  return { resent, newFills };
}

/**
 * Hands the pipeline the bot's acknowledged orders that may still receive fills (what the journal
 * booked of each is subtracted), so fills without ids are attributed to them after a restart too.
 */
function trackOpenOrders(store: Store, trader: Trader): void {
  const booked = new Map<string, { base: Decimal; quote: Decimal }>();
  for (const f of store.fills.list({ bot: trader.bot })) {
    if (f.clientOid === undefined) continue;
    const b = booked.get(f.clientOid) ?? { base: ZERO, quote: ZERO };
    booked.set(f.clientOid, { base: b.base.plus(f.size), quote: b.quote.plus(f.price.mul(f.size)) });
  }
  for (const r of store.orders.list({ bot: trader.bot, state: 'acked' })) {
    if (!trader.hasPair(r.order.symbol)) continue;
    trader.orders.track(r, booked.get(r.clientOid) ?? { base: ZERO, quote: ZERO });
  }
}
