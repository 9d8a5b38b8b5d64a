// Exits that the bot's own resting limit sells block (EXIT_BLOCKED, issue 30), followed from the pipeline's
// events: how many, the first (with the order that blocks), and the episodes, so that a notification goes out
// once per episode, not once per candle. An episode of a symbol starts at its first blocked exit and ends at
// the next sell fill of that symbol (the resting sell filled, or an exit went through).
import type { TraderEvent } from './trader-events.js';

/** The first blocked exit: when, on which symbol, which exit (its tag) and the order that blocked it. */
export interface ExitBlockedFirst {
  readonly ts: number;
  readonly symbol: string;
  readonly tag: string;
  /** The clientOid of the resting order that held the position. */
  readonly blockedBy: string | undefined;
  readonly message: string;
}

/** What a bot's status says of its blocked exits (absent when none was). */
export interface ExitBlockedStatus {
  readonly count: number;
  readonly first: ExitBlockedFirst;
}

export class ExitBlockedTally {
  count = 0;
  first: ExitBlockedFirst | undefined = undefined;
  /** The symbols whose episode is running. */
  private readonly blocked = new Set<string>();

  /** Follows one event; answers the blocked exit that starts an episode, else undefined. */
  see(e: TraderEvent): ExitBlockedFirst | undefined {
    if (e.type === 'fill' && e.fill.side === 'sell') this.blocked.delete(e.fill.symbol);
    if (e.type !== 'denied' || e.code !== 'EXIT_BLOCKED') return undefined;
    this.count++;
    const d: ExitBlockedFirst = {
      ts: e.ts,
      symbol: e.intent.symbol,
      tag: e.intent.tag,
      blockedBy: e.blockedBy,
      message: e.message,
    };
    this.first ??= d;
    if (this.blocked.has(d.symbol)) return undefined;
    this.blocked.add(d.symbol);
    return d;
  }

  /** The status's field: the count and the first, when an exit was blocked. */
  status(): { exitBlocked?: ExitBlockedStatus } {
    return this.first === undefined ? {} : { exitBlocked: { count: this.count, first: this.first } };
  }
}
