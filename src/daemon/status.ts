// The live status on a terminal (only when stderr is a TTY): a block pinned below the log, one line with
// the venue's time and one per bot (state, position, PnL, equity), each cut to the terminal's width so
// it never wraps. Log lines go through `logStream`: the block is cleared, the line written from column
// 0, and the block drawn again, so a log line never glues onto it. The legend is STATUS_LEGEND.
import { Writable } from 'node:stream';
import type { LiveBotStatus } from '../execution/live-bot.js';
import { botStateWord } from '../execution/live-bot-status.js';
import type { Clock } from '../feeds/clock.js';
import { Decimal, formatAmount, formatMoney } from '../market/decimal.js';
import { counted } from '../market/spelling.js';
import { US_EASTERN } from '../market/us-calendar.js';
import { formatZoned } from '../market/zoned-time.js';

/** What the status block shows, for `tradebot run --help`. */
export const STATUS_LEGEND = `Status lines (on a terminal, pinned below the log; times in the venue's zone, US Eastern):
  tradebot [PAPER] <date time zone>  <n> bots  orders <o> fills <f>
  <bot> <state> <position> pnl <net> eq <equity>
    state     ACTIVE (trading), PAUSED (paused by the operator: no new entries, exits run; resume to lift),
              REDUCING (exits only), HALTED (no orders; re-arm by hand); HALTED+PAUSED: both;
              +DEGRADED: a feed (candles, prices, fill sync) is older than its limit (the log says which)
    position  the size held and its coin (flat: none; "<n> positions" for several symbols); dust (a
              remainder below the venue's minimum order quantity, which no order can sell) is shown apart:
              "flat (dust 0.0006 XAAC)"
    pnl       realised + unrealised - fees, in the quote coin
    eq        equity: cash + positions at the venue's last traded price, in the quote coin
    counts    the deployment's, across restarts (the journal's)
    EXIT_BLOCKED <n>  exits denied because the bot's own resting limit sells hold the position
  Turn it off with status.enabled: false in the deployment file.`;

/** A terminal stream: `columns` is its width (a TTY WriteStream keeps it up to date on resize). */
type Terminal = Writable & { columns?: number | undefined };

const CLEAR_TO_END = '\x1b[J';

/** Cuts a line to `width` characters, marking the cut with an ellipsis. */
export function fit(line: string, width: number): string {
  const chars = [...line];
  if (chars.length <= width) return line;
  return width <= 1 ? chars.slice(0, width).join('') : `${chars.slice(0, width - 1).join('')}…`;
}

const amount = (s: string, places = 2): string => {
  const shown = formatAmount(s, places);
  return `${new Decimal(shown).gt(0) ? '+' : ''}${shown}`;
};

function positionText(b: LiveBotStatus): string {
  const [first, ...rest] = b.positions;
  const [dust, ...moreDust] = b.dust ?? [];
  if (first === undefined && dust !== undefined)
    return moreDust.length > 0
      ? `flat (dust on ${b.dust?.length} symbols)`
      : `flat (dust ${dust.quantity} ${dust.baseCoin})`;
  if (first === undefined) return 'flat';
  if (rest.length > 0) return `${b.positions.length} positions`;
  return `${first.quantity} ${first.baseCoin}`;
}

/** The lines of the block: the venue's time and totals, then one line per bot; not yet cut to width. */
export function statusLines(
  bots: readonly LiveBotStatus[],
  now: number,
  zone = US_EASTERN,
  /** Said after the name (PAPER on a paper run). */
  label?: string,
): string[] {
  const orders = bots.reduce((a, b) => a + b.orders, 0);
  const fills = bots.reduce((a, b) => a + b.fills, 0);
  const head = `tradebot ${label === undefined ? '' : `${label} `}${formatZoned(now, zone)}  ${counted(bots.length, 'bot')}  orders ${orders} fills ${fills}`;
  const nameWidth = Math.max(0, ...bots.map((b) => b.name.length));
  const stateWidth = Math.max(0, ...bots.map((b) => botStateWord(b).length));
  const rows = bots.map((b) => {
    return [
      b.name.padEnd(nameWidth),
      botStateWord(b).padEnd(stateWidth),
      positionText(b),
      `pnl ${amount(b.net)} ${b.quoteCoin}`,
      `eq ${formatMoney(b.equity, b.quoteCoin)}`,
      // Before the cut to the width would hide it: the stop that cannot run is what the operator must see.
      ...(b.exitBlocked === undefined ? [] : [`EXIT_BLOCKED ${b.exitBlocked.count}`]),
    ].join('  ');
  });
  return [head, ...rows];
}

export class StatusLine {
  private timer: ReturnType<typeof setInterval> | undefined;
  /** Lines of the block on the screen now (0: none drawn). */
  private drawn = 0;
  private source: { bots: () => readonly (LiveBotStatus | undefined)[]; clock: Clock } | undefined;

  /** Where log lines go while the block is pinned: each one lands above it, from column 0. */
  readonly logStream: Writable;

  constructor(
    private readonly out: Terminal,
    private readonly zone = US_EASTERN,
    private readonly label?: string,
  ) {
    this.logStream = new Writable({
      write: (chunk: Buffer | string, _enc, done) => {
        this.out.write(this.clearing() + chunk.toString() + this.drawing());
        done();
      },
    });
  }

  /** Starts drawing the bots' status every second. */
  start(bots: () => readonly (LiveBotStatus | undefined)[], clock: Clock): void {
    this.source = { bots, clock };
    this.render();
    this.timer = setInterval(() => this.render(), 1000);
    this.timer.unref();
  }

  /** Redraws the block in place. */
  render(): void {
    this.out.write(this.clearing() + this.drawing());
  }

  /** Removes the block: what follows is written from column 0 of a clean line. */
  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.out.write(this.clearing());
    this.source = undefined;
  }

  /** Back to column 0 of the block's first line, and everything below erased. */
  private clearing(): string {
    if (this.drawn === 0) return '';
    const up = this.drawn > 1 ? `\x1b[${this.drawn - 1}A` : '';
    this.drawn = 0;
    return `\r${up}${CLEAR_TO_END}`;
  }

  /** The block, each line cut to the width (one column spare: no terminal wraps it), cursor left at its end. */
  private drawing(): string {
    if (this.source === undefined) return '';
    const bots = this.source.bots().filter((b): b is LiveBotStatus => b !== undefined);
    // A terminal that reports no size (0 columns: a pty nobody sized, as `script` or some CI runners make)
    // is taken as the usual 80, not cut to the 20-column floor.
    const width = Math.max(20, (this.out.columns || 80) - 1);
    const lines = statusLines(bots, this.source.clock.now(), this.zone, this.label).map((l) => fit(l, width));
    this.drawn = lines.length;
    return lines.join('\n');
  }
}
