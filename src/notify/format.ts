// The text of each notification: one or two short lines a person reads on a phone, money with its coin.
import type { LiveBotStatus } from '../execution/live-bot.js';
import type { TraderFill } from '../execution/trader.js';
import type { ExitBlockedFirst } from '../execution/exit-blocked.js';
import { describeFill, exitReasonOf } from '../execution/describe.js';
import { Decimal, formatMoney } from '../market/decimal.js';
import { formatDuration } from '../market/duration.js';
import { counted } from '../market/spelling.js';
import { formatZoned } from '../market/zoned-time.js';

const money = formatMoney;

export function fillText(bot: string, f: TraderFill): string {
  const reason = exitReasonOf(f);
  return `${bot} ${reason === undefined ? '' : `exit (${reason}): `}${describeFill(f)}`;
}

export function stateText(bot: string, from: string, to: string, reason: string): string {
  return `${bot} trading state ${from} → ${to}: ${reason}`;
}

export function burstText(bot: string, codes: readonly string[], windowMs: number): string {
  const byCode = new Map<string, number>();
  for (const c of codes) byCode.set(c, (byCode.get(c) ?? 0) + 1);
  const list = [...byCode].map(([c, n]) => `${c} ×${n}`).join(', ');
  return `${bot}: ${counted(codes.length, 'intent')} denied within ${formatDuration(windowMs)} (${list}); see the journal or the logs for each sentence`;
}

/** An exit the bot's own resting limit sell blocks: which exit, which order, and what to do. */
export function exitBlockedText(bot: string, d: ExitBlockedFirst): string {
  return `${bot}: ${d.tag} exit of ${d.symbol} blocked (EXIT_BLOCKED) by the bot's own resting limit sell ${d.blockedBy ?? ''}: the venue has no cancel, the position cannot be sold until it fills. Said once until a sell of ${d.symbol} fills`;
}

export function restartText(bot: string, restarts: number, error: string): string {
  return `${bot} failed and is restarted (restart ${restarts}): ${error}`;
}

export function summaryText(bots: readonly LiveBotStatus[], now: number, zone: string): string {
  const lines = bots.map((b) => {
    const net = new Decimal(b.realisedPnl).plus(b.unrealisedPnl).minus(b.fees);
    const held = b.positions.map((p) => `${p.quantity} ${p.baseCoin}`).join(', ') || 'flat';
    return `${b.name} ${b.tradingState}: ${counted(b.orders, 'order')}, ${counted(b.fills, 'fill')}, pnl ${money(net, b.quoteCoin)} (fees ${money(b.fees, b.quoteCoin)}), equity ${money(b.equity, b.quoteCoin)}, ${held}`;
  });
  return [`tradebot daily summary, ${formatZoned(now, zone)}`, ...lines].join('\n');
}
