// The text of each notification: one or two short lines a person reads on a phone, money with its coin.
import { inertText } from '../market/inert-text.js';
import { driftAlarm } from '../drift/format.js';
import type { DriftAlarmEvent } from '../drift/types.js';
import type { FeedHealthEvent } from '../execution/feed-watch.js';
import type { FillMismatch } from '../execution/fill-router.js';
import type { LiveBotStatus } from '../execution/live-bot.js';
import { botStateWord } from '../execution/live-bot-status.js';
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

/**
 * The fills of one order as one message: one fill as `fillText`; several with their total size, the
 * average price (weighted by size) and the fees.
 */
export function orderFillsText(bot: string, fills: readonly TraderFill[]): string {
  const [first] = fills;
  if (first === undefined) return '';
  if (fills.length === 1) return fillText(bot, first);
  const reason = exitReasonOf(first);
  const size = fills.reduce((a, f) => a.plus(f.size), new Decimal(0));
  const notional = fills.reduce((a, f) => a.plus(f.price.times(f.size)), new Decimal(0));
  const avg = size.isZero() ? new Decimal(0) : notional.div(size);
  const sameFeeCoin = fills.every((f) => f.feeCoin === first.feeCoin);
  const fees = sameFeeCoin
    ? `${fills.reduce((a, f) => a.plus(f.fee), new Decimal(0)).toFixed()} ${first.feeCoin}`
    : fills.map((f) => `${f.fee.toFixed()} ${f.feeCoin}`).join(' + ');
  const verb = first.side === 'buy' ? 'bought' : 'sold';
  return (
    `${bot} ${reason === undefined ? '' : `exit (${reason}): `}${verb} ${size.toFixed()} ${first.baseCoin} ` +
    `at avg ${avg.toDecimalPlaces(8).toFixed()} ${first.quoteCoin} in ${fills.length} fills (fees ${fees})`
  );
}

/** An operator's action on a bot, as the control journal has it. */
export function controlText(
  bot: string,
  c: { action: string; who: string; reason: string; symbol?: string | undefined },
): string {
  const done: Record<string, string> = {
    pause: 'paused (no new entries)',
    resume: 'resumed (entries allowed again)',
    flatten: `flattened${c.symbol === undefined ? '' : ` (${c.symbol})`}`,
    halt: 'halted (nothing is placed until re-armed)',
    rearm: 're-armed',
  };
  return `${bot} ${done[c.action] ?? c.action} by ${inertText(c.who)}: ${inertText(c.reason)}`;
}

/** The deployment started; after an unclean end of the previous run it says so. */
export function startText(bots: readonly string[], venue: string, previousRun: PreviousRun): string {
  const head = `tradebot started on ${venue}: ${counted(bots.length, 'bot')} (${bots.join(', ')})`;
  return previousRun === 'unclean'
    ? `${head}. The previous run did not end cleanly (no clean stop in the journal): orders and fills were reconciled with the venue at start`
    : head;
}

/** The deployment stops. */
export function stopText(carried: number): string {
  return carried > 0
    ? `tradebot stopping; ${counted(carried, 'notification')} left to send at the next start`
    : 'tradebot stopping';
}

/** How the previous run of a journal ended: none before, a clean stop, or not (a crash, a kill). */
export type PreviousRun = 'first' | 'clean' | 'unclean';

export function stateText(bot: string, from: string, to: string, reason: string): string {
  return `${bot} trading state ${from} → ${to}: ${inertText(reason)}`;
}

/** An exit the bot's own resting limit sell blocks: which exit, which order, and what to do. */
export function exitBlockedText(bot: string, d: ExitBlockedFirst): string {
  return `${bot}: ${d.tag} exit of ${d.symbol} blocked (EXIT_BLOCKED) by the bot's own resting limit sell ${d.blockedBy ?? ''}: the venue has no cancel, the position cannot be sold until it fills. Said once until a sell of ${d.symbol} fills`;
}

export function restartText(bot: string, restarts: number, error: string): string {
  return `${bot} failed and is restarted (restart ${restarts}): ${inertText(error)}`;
}

/** A bot DEGRADED by a starving feed, or OK again. */
export function feedHealthText(e: FeedHealthEvent): string {
  return e.state === 'DEGRADED'
    ? `${e.bot} DEGRADED: ${e.problems.join('; ')}`
    : `${e.bot} recovered: feeds fresh again after ${formatDuration(e.degradedForMs ?? 0)} DEGRADED`;
}

/** The account and the bots' books parted: a venue fill the journal does not hold exactly once. */
export function fillsMismatchText(e: FillMismatch): string {
  return `ALARM ${e.symbol}: the venue's fill ${e.execId} (${e.side} ${e.size}) is booked as ${e.booked}; the bots' books no longer sum to the account`;
}

/** A drift check's alarm: the bot, how many unexplained differences, the first one with its candle. */
export function driftAlarmText(e: DriftAlarmEvent): string {
  const first = e.differences[0];
  return (
    `${e.bot} DRIFT ALARM: ${e.unexplained} unexplained difference${e.unexplained === 1 ? '' : 's'} between live and the replay of the venue's candles` +
    (first === undefined ? '' : `; first: ${driftAlarm(e.bot, first)}`) +
    ' (tradebot drift --report)'
  );
}

export function summaryText(bots: readonly LiveBotStatus[], now: number, zone: string): string {
  return [`tradebot daily summary, ${formatZoned(now, zone)}`, ...bots.map(botLine)].join('\n');
}

/** One bot in a line: state, counts, PnL net of fees, equity, holdings. */
export function botLine(b: LiveBotStatus): string {
  const held = b.positions.map((p) => `${p.quantity} ${p.baseCoin}`).join(', ') || 'flat';
  return `${b.name} ${botStateWord(b)}: ${counted(b.orders, 'order')}, ${counted(b.fills, 'fill')}, pnl ${money(b.net, b.quoteCoin)} (fees ${money(b.fees, b.quoteCoin)}), equity ${money(b.equity, b.quoteCoin)}, ${held}`;
}
