// Logs: winston, JSON when not on a terminal, readable lines on one; stable message phrases with fields
// (and `what`, the sentence a person reads, shown in place of the message on a terminal).
// Secrets never reach a log: fields named like secrets are redacted, and every registered secret value
// is scrubbed from messages and fields wherever it appears.
import type { Writable } from 'node:stream';
import winston from 'winston';
import { inertText } from '../market/inert-text.js';
import { formatZoned, formatZonedTime } from '../market/zoned-time.js';

export type LogLevel = 'error' | 'warn' | 'info' | 'debug';
export type LogFields = Readonly<Record<string, unknown>>;

export interface Logger {
  debug(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
  child(fields: LogFields): Logger;
}

const SECRET_FIELD =
  /secret|passphrase|password|api[-_]?key|signature|authorization|access-sign|access-key|token/i;
const REDACTED = '[redacted]';
const secretValues = new Set<string>();

/** Registers secret values (API secret, passphrase, key) to scrub from every log line. */
export function registerSecrets(values: Iterable<string>): void {
  for (const v of values) if (v.length >= 4) secretValues.add(v);
}

function scrubString(s: string): string {
  let out = s;
  for (const v of secretValues) if (out.includes(v)) out = out.split(v).join(REDACTED);
  return out;
}

/** A copy of a value with secret fields and secret values replaced. */
export function redact(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return scrubString(value);
  if (depth > 8 || value === null || typeof value !== 'object') return value;
  if (value instanceof Error) return { name: value.name, message: scrubString(value.message) };
  if (Array.isArray(value)) return value.map((v) => redact(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = SECRET_FIELD.test(k) ? REDACTED : redact(v, depth + 1);
  return out;
}

const redactFormat = winston.format((info) => {
  const copy = redact({ ...info }) as winston.Logform.TransformableInfo;
  for (const k of Object.keys(info)) delete (info as Record<string, unknown>)[k];
  Object.assign(info, copy);
  return info;
});

export interface LoggerOptions {
  readonly level?: LogLevel | undefined;
  readonly format?: 'auto' | 'json' | 'pretty' | undefined;
  /** Where lines go (default stderr, so stdout stays for command output). */
  readonly stream?: Writable | undefined;
  /** Whether the lines end on a terminal (default: whether `stream` is a TTY); `auto` is pretty there. */
  readonly tty?: boolean | undefined;
  /** Said on every line (PAPER on a paper run): first in a terminal's line, `mode` in JSON. */
  readonly mode?: string | undefined;
  /**
   * The venue's clock (undefined until the venue is known) and the zone its times are read in: a line's time in a
   * terminal, `venueTime` in JSON (the wall clock stays as `timestamp`), so the log reads the same clock as the
   * status block, the dashboard and the CLI.
   */
  readonly venueClock?: { readonly now: () => number | undefined; readonly zone: string } | undefined;
}

/** Creates the process logger. */
export function createLogger(o: LoggerOptions = {}): Logger {
  const stream = o.stream ?? process.stderr;
  const tty = o.tty ?? (stream as { isTTY?: boolean }).isTTY === true;
  const pretty = o.format === 'pretty' || (o.format !== 'json' && tty);
  // Every line, a child's too, gets the mode in JSON (a default field would miss the children's).
  const modeFormat = winston.format((info) =>
    o.mode === undefined ? info : Object.assign(info, { mode: o.mode }),
  );
  const venueNow = (): number | undefined => o.venueClock?.now();
  const venueFormat = winston.format((info) => {
    const t = venueNow();
    return t === undefined || o.venueClock === undefined
      ? info
      : Object.assign(info, { venueTime: formatZoned(t, o.venueClock.zone) });
  });
  const format = pretty
    ? winston.format.combine(
        redactFormat(),
        winston.format.timestamp({ format: 'HH:mm:ss' }),
        winston.format.colorize({ all: false }),
        // A line's `what` (the sentence with units, e.g. "order placed: buy 2000 USDT of AAPLUSDT at
        // market") is what a person reads in place of the stable message; JSON keeps both.
        winston.format.printf(({ level, message, timestamp, what, mode: _mode, ...all }) => {
          const t = venueNow();
          const time =
            t === undefined || o.venueClock === undefined
              ? String(timestamp)
              : formatZonedTime(t, o.venueClock.zone);
          // With a sentence, only the bot is added: the other fields are in it (and in JSON).
          const rest = typeof what === 'string' ? (all.bot === undefined ? {} : { bot: all.bot }) : all;
          const fields = Object.entries(rest)
            .filter(([k]) => typeof k === 'string')
            .map(([k, v]) => `${k}=${typeof v === 'string' ? inertText(v) : JSON.stringify(v)}`)
            .join(' ');
          // Text from outside (a control reason, a venue's message) stays on its line and cannot steer the terminal.
          const text = inertText(typeof what === 'string' ? what : String(message));
          const mode = o.mode === undefined ? '' : `${o.mode} `;
          return `${time} ${mode}${level} ${text}${fields ? ` ${fields}` : ''}`;
        }),
      )
    : winston.format.combine(
        redactFormat(),
        modeFormat(),
        winston.format.timestamp(),
        venueFormat(),
        winston.format.json(),
      );
  const w = winston.createLogger({
    level: o.level ?? 'info',
    format,
    transports: [new winston.transports.Stream({ stream })],
  });
  return wrap(w);
}

function wrap(w: winston.Logger): Logger {
  return {
    debug: (m, f) => w.debug(m, f),
    info: (m, f) => w.info(m, f),
    warn: (m, f) => w.warn(m, f),
    error: (m, f) => w.error(m, f),
    child: (fields) => wrap(w.child(fields)),
  };
}
