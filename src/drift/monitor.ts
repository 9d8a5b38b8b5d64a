// One drift check of one bot: its journal read for the span, the venue's candles replayed, the two compared
// (compare.ts), and the report kept in the journal. The CLI (`tradebot drift`) and the daemon's schedule at
// each venue day's close both run it.
import { INTERVAL_MS } from '../api/index.js';
import type { RestClient } from '../client/index.js';
import { Decimal } from '../market/decimal.js';
import { daemonRunning, type Store } from '../store/index.js';
import {
  compareDrift,
  type DriftFill,
  type DriftReport,
  type LiveIntent,
  type LiveOrder,
  type OperatorAction,
} from './compare.js';
import { fetchVenueCandles, replayBot, replayStart, type DriftBot } from './replay.js';

/** The span the daemon checks at a venue day's close, and the CLI by default: the last 24 venue hours. */
export const DRIFT_DAY_MS = 86_400_000;

export interface DriftRun {
  readonly bot: DriftBot;
  readonly store: Store;
  readonly client: Pick<RestClient, 'historyCandles' | 'instruments'>;
  /** Venue time now: the span ends at the last candle boundary before it. */
  readonly now: number;
  /** Start of the span (default: a venue day before `now`). */
  readonly since?: number | undefined;
  /** Keep the report in the journal (default true). */
  readonly keep?: boolean | undefined;
}

/** The span of a check: candle boundaries, never before the bot's first decision that could trade. */
export function driftSpan(
  store: Store,
  bot: DriftBot,
  now: number,
  since: number | undefined,
): { from: number; to: number } {
  const step = INTERVAL_MS[bot.interval];
  let to = Math.floor(now / step) * step;
  let from = Math.ceil((since ?? now - DRIFT_DAY_MS) / step) * step;
  // Before the bot's first decision that could trade there is nothing of it to compare (its first warm-up).
  const rows = store.decided.list(bot.name);
  const first = rows.find((r) => r.phase !== 'warm_up');
  if (first !== undefined && first.openTime > from) from = first.openTime;
  // A daemon that stopped decides nothing more: the span ends where its journal does (while it runs, a candle
  // it does not decide is a difference).
  const last = rows[rows.length - 1];
  if (!daemonRunning(store) && last !== undefined)
    to = Math.min(to, Math.floor(last.decidedTs / step) * step);
  return { from, to: Math.max(from, to) };
}

/** The journal's side of a bot: intents with the gate's decisions, orders, fills with their tags, operator actions. */
export function journalSide(
  store: Store,
  bot: string,
): {
  intents: LiveIntent[];
  orders: LiveOrder[];
  fills: DriftFill[];
  controls: OperatorAction[];
} {
  const denied = new Map<string, string[]>();
  for (const d of store.denials.list({ bot })) {
    const k = `${d.ts}|${d.symbol}|${d.intent.tag}|${d.intent.side}`;
    denied.set(k, [...(denied.get(k) ?? []), d.code]);
  }
  const intents = store.intents.list({ bot }).map((i) => {
    const k = `${i.ts}|${i.symbol}|${i.intent.tag}|${i.intent.side}`;
    const codes = denied.get(k);
    const code = codes?.shift();
    return {
      ts: i.ts,
      symbol: i.symbol,
      side: i.intent.side,
      tag: i.intent.tag,
      decision: code ?? 'approved',
    };
  });
  const records = store.orders.list({ bot });
  const tags = new Map(records.map((o) => [o.clientOid, o.intent?.tag ?? '']));
  const orders = records.map((o) => ({
    ts: o.createdTs,
    symbol: o.order.symbol,
    side: o.order.side,
    tag: o.intent?.tag ?? '',
    state: o.state,
    clientOid: o.clientOid,
    reject: o.rejectCode === undefined ? undefined : `${o.rejectCode} ${o.rejectMsg ?? ''}`.trim(),
  }));
  const fills = store.fills.list({ bot }).map((f) => ({
    ts: f.ts,
    symbol: f.symbol,
    side: f.side,
    tag: tags.get(f.clientOid ?? '') ?? '',
    price: f.price,
    size: f.size,
    fee: f.fee,
    key: f.clientOid ?? f.orderId ?? f.execId,
  }));
  const controls = store.control.list(bot, 100_000).map((c) => ({
    ts: c.ts,
    action: c.action,
    symbol: c.symbol,
    who: c.who,
    reason: c.reason,
  }));
  return { intents, orders, fills, controls };
}

/** The strategy's warm-up in candles of the bot's interval (informative intervals counted in base candles). */
function warmUpOf(bot: DriftBot): number {
  const step = INTERVAL_MS[bot.interval];
  return Math.round((0 - replayStart(bot, 0)) / step);
}

/** Runs one drift check of one bot (see the module's comment); the report is kept unless `keep` is false. */
export async function runDrift(o: DriftRun): Promise<DriftReport> {
  const { bot, store } = o;
  const { from, to } = driftSpan(store, bot, o.now, o.since);
  const step = INTERVAL_MS[bot.interval];
  const series = await fetchVenueCandles(o.client, bot, from, to);
  const journal = journalSide(store, bot.name);
  const opening = store.fills.list({ bot: bot.name }).filter((f) => f.ts < from);
  const replay = await replayBot(bot, series, from, opening);
  const report = compareDrift({
    bot: bot.name,
    stepMs: step,
    from,
    to,
    lateAfterMs: bot.maxSignalAgeMs !== undefined && bot.maxSignalAgeMs > 0 ? bot.maxSignalAgeMs : step,
    venueCandles: series.flatMap((s) => s.candles),
    decided: store.decided.list(bot.name),
    liveIntents: journal.intents,
    replayIntents: replay.intents,
    orders: journal.orders,
    liveFills: journal.fills,
    replayFills: replay.fills,
    controls: journal.controls,
    warmUpCandles: warmUpOf(bot),
    feeRate: new Decimal(bot.feeRate),
    makerFeeRate: bot.makerFeeRate === undefined ? undefined : new Decimal(bot.makerFeeRate),
  });
  if (o.keep !== false)
    store.drift.record({
      bot: bot.name,
      from,
      to,
      differences: report.differences.length,
      unexplained: report.unexplained,
      report,
      ts: o.now,
    });
  return report;
}
