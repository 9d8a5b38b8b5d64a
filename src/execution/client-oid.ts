// Deterministic client order ids: the same intent, re-derived after a restart from the same inputs,
// gets the same id, so the venue's duplicate-clientOid rule turns a replayed intent into a no-op.
import * as crypto from 'node:crypto';

export interface ClientOidInput {
  readonly bot: string;
  readonly symbol: string;
  readonly side: string;
  readonly tag: string;
  /** The time that triggered the intent (e.g. the close time of the candle the strategy saw). */
  readonly triggerTime: number;
  /** Position of the intent among the bot's intents of the same trigger time. */
  readonly seq: number;
}

/**
 * `tb` + 30 base-36 characters, inside the catalogue's clientOid rule (1-64 of [A-Za-z0-9_-.:]):
 * 16 from SHA-256 of (bot, symbol, side, tag), then the trigger time (9) and the sequence number (5),
 * written out. The hash of the four names is kept per combination (a bot has few), so an order costs
 * no hash: a backtest derives one id per order, and hashing each was a fifth of an order's cost. A
 * trigger time or sequence number outside what the 14 characters hold (a negative or fractional time,
 * a time after the year 5138, 60 million intents of one time) is hashed with the names instead (30
 * characters of SHA-256: as unlikely to meet a written-out id as two hashes are to collide).
 */
export function deriveClientOid(i: ClientOidInput): string {
  const t = i.triggerTime;
  const seq = i.seq;
  const key = `${i.bot}\u001f${i.symbol}\u001f${i.side}\u001f${i.tag}`;
  if (!(
    t >= 0 &&
    t < MAX_TIME &&
    t === Math.floor(t) &&
    seq >= 0 &&
    seq < MAX_SEQ &&
    seq === Math.floor(seq)
  ))
    return `tb${hashed36(`${key}\u001f${t}\u001f${seq}`, 30)}`;
  let prefix = PREFIXES.get(key);
  if (prefix === undefined) {
    if (PREFIXES.size >= MAX_PREFIXES) PREFIXES.clear();
    prefix = `tb${hashed36(key, 16)}`;
    PREFIXES.set(key, prefix);
  }
  return prefix + t.toString(36).padStart(9, '0') + seq.toString(36).padStart(5, '0');
}

/**
 * Every clientOid `deriveClientOid` makes: "tb" and 30 base-36 characters (a read-only dashboard hides them
 * in the sentences it shows, an EXIT_BLOCKED's names the order that blocks).
 */
export const CLIENT_OID_PATTERN = /\btb[0-9a-z]{30}\b/g;

/** 36^9 ms: trigger times before the year 5138 are written out in 9 base-36 characters. */
const MAX_TIME = 36 ** 9;
/** 36^5 intents of one trigger time. */
const MAX_SEQ = 36 ** 5;
/** The hashed prefix of each (bot, symbol, side, tag) seen; emptied past this many (tags made per order). */
const PREFIXES = new Map<string, string>();
const MAX_PREFIXES = 10_000;

/** The first `n` characters of the base-36 SHA-256 of `text` (its first 160 bits, left-padded to 31). */
function hashed36(text: string, n: number): string {
  return base36Of160(sha256(text)).padStart(31, '0').slice(0, n);
}

/**
 * SHA-256 of a string: node's one-shot `crypto.hash` where it exists (Node >= 20.12; about half the cost
 * of a Hash object, and a backtest derives one id per order), `createHash` before that.
 */
const sha256: (text: string) => Uint8Array =
  typeof (crypto as { hash?: unknown }).hash === 'function'
    ? (text) =>
        (crypto as unknown as { hash(a: string, d: string, e: 'buffer'): Buffer }).hash(
          'sha256',
          text,
          'buffer',
        )
    : (text) => crypto.createHash('sha256').update(text).digest();

/**
 * The first 160 bits of `bytes` as a base-36 number, without BigInt: five 32-bit limbs divided by 36 in
 * turn (a backtest derives one id per order, and BigInt's toString(36) was its largest cost). Equal to
 * `BigInt('0x' + hex).toString(36)` (tested).
 */
export function base36Of160(bytes: Uint8Array): string {
  const limbs = LIMBS;
  for (let k = 0; k < 5; k++)
    limbs[k] =
      (((bytes[4 * k] as number) << 24) |
        ((bytes[4 * k + 1] as number) << 16) |
        ((bytes[4 * k + 2] as number) << 8) |
        (bytes[4 * k + 3] as number)) >>>
      0;
  // Digits from the least significant, into a reused buffer; one string at the end (prepending a
  // character per digit built 31 intermediate strings per id).
  let n = 0;
  let nonZero = limbs.some((x) => x !== 0);
  while (nonZero) {
    let rem = 0;
    nonZero = false;
    for (let k = 0; k < 5; k++) {
      // rem < 36, so rem * 2^32 + limb < 2^38: exact in a double.
      const cur = rem * 4294967296 + (limbs[k] as number);
      const q = Math.floor(cur / 36);
      rem = cur - q * 36;
      limbs[k] = q;
      if (q !== 0) nonZero = true;
    }
    CODES[DIGIT_COUNT - 1 - n++] = DIGIT_CODES[rem] as number;
  }
  return n === 0
    ? '0'
    : String.fromCharCode.apply(null, CODES.subarray(DIGIT_COUNT - n) as unknown as number[]);
}

/** 36^31 > 2^160: at most 31 base-36 digits. */
const DIGIT_COUNT = 31;
const LIMBS = new Float64Array(5);
const CODES = new Uint16Array(DIGIT_COUNT);
const DIGIT_CODES = Array.from('0123456789abcdefghijklmnopqrstuvwxyz', (c) => c.charCodeAt(0));

/** Hands out `seq` per (bot, trigger time) so two intents of one candle never share an id. */
export class IntentSequencer {
  private lastTime = Number.NaN;
  private seq = 0;
  next(triggerTime: number): number {
    if (triggerTime !== this.lastTime) {
      this.lastTime = triggerTime;
      this.seq = 0;
    }
    return this.seq++;
  }
}
