// The dashboard's live state: a BotView per bot of the daemon (following its restarts), the log tail of
// every bot, and the event streams each change is pushed to.
import type { FastifyReply } from 'fastify';
import type { BotConfig } from '../config/index.js';
import type { LiveBot } from '../execution/live-bot.js';
import { ZERO, type Decimal } from '../market/decimal.js';
import type { SessionState } from '../market/sessions.js';
import type { Store } from '../store/index.js';
import { BotView, LOG_LINES, type EquityPoint, type LogLine } from './bot-view.js';

/** The deployment's book as the state shows it: quantities as decimal strings. */
export interface DeploymentBook {
  readonly fills: number;
  readonly positions: readonly { symbol: string; baseCoin: string; quantity: string }[];
}

/** A bot as the daemon holds it: its configuration, and its running instance (none while restarting). */
export interface DashboardBot {
  readonly config: BotConfig;
  readonly bot: LiveBot | undefined;
}

export interface DashboardStateOptions {
  readonly bots: () => readonly DashboardBot[];
  readonly store: Store;
  /** How the venue runs, shown in the header. */
  readonly venue: { readonly kind: string; readonly speed: number } | undefined;
  /** No token configured: the state says so (the page then offers no control). */
  readonly readOnly: boolean;
}

export class DashboardState {
  readonly views = new Map<string, BotView>();
  /** The last LOG_LINES lines of every bot, oldest first. */
  readonly log: LogLine[] = [];
  private readonly streams = new Set<FastifyReply>();
  private pending: ReturnType<typeof setTimeout> | undefined;
  private book: { seq: number; view: DeploymentBook } | undefined;

  constructor(private readonly o: DashboardStateOptions) {}

  /** Follows the daemon's bots (a restarted bot is a new instance). */
  refresh(): void {
    for (const b of this.o.bots()) {
      let v = this.views.get(b.config.name);
      if (v === undefined)
        this.views.set(b.config.name, (v = new BotView(b.config, this.o.store, this.changed(b.config.name))));
      v.attach(b.bot);
    }
  }

  /** Each bot's equity curve from `since` on (venue Unix seconds): the stream's hello and GET /api/equity. */
  equityCurves(since: number): Record<string, readonly EquityPoint[]> {
    const out: Record<string, readonly EquityPoint[]> = {};
    for (const [name, v] of this.views) out[name] = v.equity.filter((p) => p.time >= since);
    return out;
  }

  /** Every bot, with the venue's clock and session (read from the first running bot). */
  snapshot(redacted: boolean) {
    this.refresh();
    const { now, session } = this.clockAndSession();
    return {
      readOnly: this.o.readOnly,
      now,
      session,
      venue: this.o.venue,
      bots: [...this.views.values()].map((v) => v.snapshot(redacted)),
      deploymentBook: this.deploymentBook(),
    };
  }

  /**
   * The deployment's book: fills (or parts) of the account no open order of a bot matched, booked to no bot
   * rather than lost, with the net they hold per symbol. Read again only when a fill came.
   */
  private deploymentBook(): DeploymentBook {
    const seq = this.o.store.fills.lastSeq();
    if (this.book?.seq === seq) return this.book.view;
    const net = new Map<string, { baseCoin: string; quantity: Decimal }>();
    const rows = this.o.store.fills.deploymentBook();
    for (const f of rows) {
      const was = net.get(f.symbol) ?? { baseCoin: f.baseCoin, quantity: ZERO };
      const quantity = f.side === 'buy' ? was.quantity.plus(f.size) : was.quantity.minus(f.size);
      net.set(f.symbol, { baseCoin: was.baseCoin, quantity });
    }
    const view: DeploymentBook = {
      fills: rows.length,
      positions: [...net].map(([symbol, p]) => ({
        symbol,
        baseCoin: p.baseCoin,
        quantity: p.quantity.toFixed(),
      })),
    };
    this.book = { seq, view };
    return view;
  }

  /**
   * Streams to `reply` (hijacked, its headers written): the hello (the curves and the log tail), the state,
   * then each change, until the returned function is called.
   */
  stream(reply: FastifyReply): () => void {
    this.refresh();
    this.send(reply, 'hello', { equity: this.equityCurves(0), log: this.log });
    this.send(reply, 'state', this.snapshot(false));
    this.streams.add(reply);
    return () => this.streams.delete(reply);
  }

  /** The periodic push: the state to the streams (the clock moves even when nothing happens). */
  tick(): void {
    if (this.streams.size > 0) this.broadcast('state', this.snapshot(false));
    else this.refresh();
  }

  /** Ends the streams and stops following the bots. */
  close(): void {
    if (this.pending !== undefined) clearTimeout(this.pending);
    for (const r of this.streams) r.raw.end();
    this.streams.clear();
    for (const v of this.views.values()) v.detach();
  }

  private clockAndSession(): { now: number | undefined; session: SessionState | undefined } {
    for (const v of this.views.values()) {
      const t = v.live?.trader;
      if (t !== undefined) return { now: t.clockNow(), session: t.market.session() };
    }
    return { now: undefined, session: undefined };
  }

  private send(reply: FastifyReply, event: string, data: unknown): void {
    reply.raw.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  }

  private broadcast(event: string, data: unknown): void {
    for (const r of this.streams) this.send(r, event, data);
  }

  /** One state push for a burst of changes. */
  private pushStateSoon(): void {
    if (this.pending !== undefined || this.streams.size === 0) return;
    this.pending = setTimeout(() => {
      this.pending = undefined;
      this.broadcast('state', this.snapshot(false));
    }, 200);
    this.pending.unref();
  }

  /** What a bot's view tells of each change: the log line and the equity point go out at once, the state soon. */
  private changed(bot: string) {
    return (line: LogLine | undefined, point: EquityPoint | undefined): void => {
      if (line !== undefined) {
        this.log.push(line);
        if (this.log.length > LOG_LINES) this.log.splice(0, this.log.length - LOG_LINES);
        this.broadcast('log', line);
      }
      if (point !== undefined) this.broadcast('equity', { bot, ...point });
      this.pushStateSoon();
    };
  }
}
