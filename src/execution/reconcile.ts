// Reconciliation on start: what the journal says may not have reached the venue is resent under its
// clientOid (a duplicate answer means it had landed), fills missed while down are fetched, and the
// portfolio is rebuilt from the fill journal.
import { Portfolio, type PortfolioOptions } from '../portfolio/portfolio.js';
import type { Store } from '../store/index.js';
import type { Executor, OrderOutcome } from './executor.js';
import type { FillSync, FillSyncSymbol } from './fill-sync.js';

export interface ReconcileReport {
  readonly resent: readonly OrderOutcome[];
  readonly newFills: number;
}

/** Rebuilds a portfolio from the journal: starting cash plus every journaled fill in order. */
export function rebuildPortfolio(store: Store, opts: PortfolioOptions, bot?: string): Portfolio {
  return Portfolio.fromFills(store.fills.list(bot === undefined ? {} : { bot }), opts);
}

/** Resends pending orders (of one bot, or all) and pulls the fills of the given symbols. */
export async function reconcile(args: {
  store: Store;
  executor: Executor;
  fillSync: FillSync;
  symbols: readonly FillSyncSymbol[];
  bot?: string | undefined;
}): Promise<ReconcileReport> {
  const pending = args.store.orders
    .pendingOrders()
    .filter((o) => args.bot === undefined || o.bot === args.bot);
  const resent: OrderOutcome[] = [];
  for (const record of pending) resent.push(await args.executor.resend(record));
  let newFills = 0;
  for (const s of args.symbols) newFills += (await args.fillSync.sync(s)).length;
  return { resent, newFills };
}
