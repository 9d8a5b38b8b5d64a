// Reconciliation on start: what the journal says may not have reached the venue is resent under its
// clientOid (a duplicate answer means it had landed), and fills missed while down are pulled through the
// pipeline; the portfolio itself is rebuilt from the fill journal before (`Portfolio.fromFills`).
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
  const newFills = (await args.trader.syncFills()).length;
  return { resent, newFills };
}
