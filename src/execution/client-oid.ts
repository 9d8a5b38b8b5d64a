// Deterministic client order ids: the same intent, re-derived after a restart from the same inputs,
// gets the same id, so the venue's duplicate-clientOid rule turns a replayed intent into a no-op.
import { createHash } from 'node:crypto';

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

/** `tb` + 30 base-36 characters of SHA-256: inside the catalogue's clientOid rule (1-64 of [A-Za-z0-9_-.:]). */
export function deriveClientOid(i: ClientOidInput): string {
  const h = createHash('sha256')
    .update([i.bot, i.symbol, i.side, i.tag, String(i.triggerTime), String(i.seq)].join('\u001f'))
    .digest();
  return `tb${BigInt(`0x${h.subarray(0, 20).toString('hex')}`)
    .toString(36)
    .padStart(31, '0')
    .slice(0, 30)}`;
}

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
