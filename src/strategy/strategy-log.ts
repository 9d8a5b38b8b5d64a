// A strategy's `ctx.logger` in a backtest: each call one line with the time of the candle being decided,
// its symbol and the level, written whole to the run's `strategy.log` and echoed to the terminal from a
// level on, rate-limited (a strategy that logs per candle would bury the terminal), saying what it dropped.
import { closeSync, copyFileSync, mkdtempSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Candle } from '../market/candle.js';
import type { LogFields, StrategyLogger } from './contract.js';

export const LOG_LEVELS = ['error', 'warn', 'info', 'debug'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** One call of a strategy's logger, with the candle it was deciding (none yet in `init`). */
export interface StrategyLogLine {
  readonly level: LogLevel;
  readonly message: string;
  readonly fields: LogFields | undefined;
  /** Open time of the candle being decided. */
  readonly time: number | undefined;
  readonly symbol: string | undefined;
}

/** A logger for `ctx` whose every call becomes a line stamped with the candle `deciding()` answers. */
export function candleLogger(
  sink: (line: StrategyLogLine) => void,
  deciding: () => Candle | undefined,
): StrategyLogger {
  const at =
    (level: LogLevel) =>
    (message: string, fields?: LogFields): void => {
      const c = deciding();
      sink({ level, message, fields, time: c?.openTime, symbol: c?.symbol });
    };
  return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

const fieldText = (v: unknown): string => {
  if (typeof v === 'string') return /\s/.test(v) || v === '' ? JSON.stringify(v) : v;
  if (v instanceof Error) return JSON.stringify(v.message);
  try {
    return JSON.stringify(v) ?? String(v);
  } catch {
    return String(v);
  }
};

/** A line as strategy.log and the terminal show it: `<candle time> <symbol> <level> <message> k=v ...`. */
export function formatLogLine(l: StrategyLogLine): string {
  const time = l.time === undefined ? '-' : new Date(l.time).toISOString();
  const fields = Object.entries(l.fields ?? {})
    .map(([k, v]) => ` ${k}=${fieldText(v)}`)
    .join('');
  return `${time} ${l.symbol ?? '-'} ${l.level} ${l.message}${fields}`;
}

export interface EchoOptions {
  /** Lines at this level or more severe are echoed. */
  readonly level: LogLevel;
  readonly write: (text: string) => void;
  /** Lines echoed at once before the limit applies (default 20). */
  readonly burst?: number | undefined;
  /** Lines per second echoed after the burst (default 5). */
  readonly perSecond?: number | undefined;
  /** Milliseconds of wall-clock time (default performance.now): the terminal's budget is a reader's time. */
  readonly now?: (() => number) | undefined;
}

/** A backtest's strategy log: the whole of it in a file, and the echo to the terminal. */
export class StrategyLog {
  private readonly dir: string;
  private readonly fd: number;
  private pending: string[] = [];
  private pendingChars = 0;
  private tokens: number;
  private last: number | undefined;
  private dropped = 0;
  /** Lines written. */
  lines = 0;
  private closed = false;

  constructor(private readonly echo?: EchoOptions | undefined) {
    // The run's folder is made once the run is done: the lines wait in a file of their own until then.
    this.dir = mkdtempSync(join(tmpdir(), 'tradebot-strategy-log-'));
    this.fd = openSync(join(this.dir, 'strategy.log'), 'w');
    this.tokens = echo?.burst ?? 20;
  }

  /** Takes one line (the sink of `candleLogger`). */
  readonly add = (line: StrategyLogLine): void => {
    if (this.closed) return;
    const text = formatLogLine(line);
    this.lines++;
    this.pending.push(text, '\n');
    this.pendingChars += text.length + 1;
    if (this.pendingChars > 1 << 16) this.flush();
    if (this.echo !== undefined && LOG_LEVELS.indexOf(line.level) <= LOG_LEVELS.indexOf(this.echo.level))
      this.toTerminal(text);
  };

  private toTerminal(text: string): void {
    const e = this.echo as EchoOptions;
    const now = (e.now ?? (() => performance.now()))();
    const burst = e.burst ?? 20;
    if (this.last !== undefined)
      this.tokens = Math.min(burst, this.tokens + ((now - this.last) / 1000) * (e.perSecond ?? 5));
    this.last = now;
    if (this.tokens < 1) {
      this.dropped++;
      return;
    }
    this.tokens -= 1;
    this.saidDropped();
    e.write(`strategy: ${text}\n`);
  }

  private saidDropped(): void {
    if (this.dropped === 0 || this.echo === undefined) return;
    this.echo.write(
      `strategy: ${this.dropped} log ${this.dropped === 1 ? 'line' : 'lines'} not shown here (too many at once); every line is in strategy.log\n`,
    );
    this.dropped = 0;
  }

  private flush(): void {
    if (this.pending.length === 0) return;
    writeSync(this.fd, this.pending.join(''));
    this.pending = [];
    this.pendingChars = 0;
  }

  /** Ends the log: says what the terminal did not show, and closes the file. */
  close(): void {
    if (this.closed) return;
    this.flush();
    this.saidDropped();
    closeSync(this.fd);
    this.closed = true;
  }

  /** Moves the log into `folder` as strategy.log (closing it first); nothing when no line was logged. */
  moveInto(folder: string): string | undefined {
    this.close();
    const from = join(this.dir, 'strategy.log');
    const to = join(folder, 'strategy.log');
    try {
      if (this.lines === 0) return undefined;
      try {
        renameSync(from, to);
      } catch {
        copyFileSync(from, to); // another file system: rename cannot cross it
      }
      return to;
    } finally {
      this.discard();
    }
  }

  /** Removes the waiting file (a run that failed writes no folder). */
  discard(): void {
    this.close();
    rmSync(this.dir, { recursive: true, force: true });
  }
}
