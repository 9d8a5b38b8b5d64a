// The count of a replay (a backfill after a start or a gap: candles closed longer ago than signals may be),
// told in one line at the first live candle after it: its denials (STALE_SIGNAL) are in the journal, not one
// log line each.
import { formatDuration } from '../market/duration.js';
import { counted } from '../market/spelling.js';

export class ReplayNote {
  /** Candles of the replay in progress, by symbol. */
  private replayed = new Map<string, number>();

  constructor(
    private readonly o: {
      readonly bot: string;
      /** Signals older than this are not traded (0: no limit, nothing to tell). */
      readonly maxSignalAgeMs: number;
      readonly logger: { info(msg: string, meta?: Record<string, unknown>): void };
    },
  ) {}

  /** Symbols with candles of a replay not told yet. */
  get size(): number {
    return this.replayed.size;
  }

  /** A candle decided at `now`: counted when it is a replay's, else the replay before it is told. */
  see(symbol: string, closeTime: number, now: number): void {
    const maxAge = this.o.maxSignalAgeMs;
    if (maxAge <= 0) return;
    if (now - closeTime > maxAge) {
      this.replayed.set(symbol, (this.replayed.get(symbol) ?? 0) + 1);
      return;
    }
    if (this.replayed.size === 0) return;
    const counts = [...this.replayed.values()];
    const n = counts.every((x) => x === counts[0])
      ? `${counts[0]} candles per symbol`
      : [...this.replayed].map(([s, k]) => `${counted(k, 'candle')} of ${s}`).join(', ');
    this.replayed = new Map();
    this.o.logger.info('replay done', {
      bot: this.o.bot,
      what: `backfilled ${n}; signals older than ${formatDuration(maxAge)} are not traded (their denials are in the journal)`,
    });
  }
}
