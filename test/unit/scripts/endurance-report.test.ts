// What the endurance run reads of a journal, per simulated day: counts, the decision lateness each clientOid's
// trigger time gives, and the bots stuck on dust (an open day without an order while holding only dust).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DAY_MS, journalDays } from '../../../scripts/endurance-report.js';
import { deriveClientOid } from '../../../src/execution/client-oid.js';
import { openStore } from '../../../src/store/index.js';

const START = Date.parse('2026-11-23T14:25:00Z'); // Monday 09:25 ET
const MIN = 60_000;
const dir = mkdtempSync(join(tmpdir(), 'tradebot-endurance-report-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('journalDays', () => {
  it('counts each day, measures lateness from the clientOid, and names a bot that holds only dust all day', () => {
    const path = join(dir, 'journal.db');
    const store = openStore(path);
    const db = store.db;
    const order = (bot: string, close: number, lateMs: number, state: 'acked' | 'rejected', seq = 0) => {
      const oid = deriveClientOid({
        bot,
        symbol: 'XAAAUSDT',
        side: 'buy',
        tag: 't',
        triggerTime: close,
        seq,
      });
      db.prepare(
        `INSERT INTO orders (client_oid, bot, category, symbol, side, order_type, qty, state, created_ts, updated_ts)
         VALUES (?, ?, 'SPOT', 'XAAAUSDT', 'buy', 'market', '1', ?, ?, ?)`,
      ).run(oid, bot, state, close + lateMs, close + lateMs);
      db.prepare(
        `INSERT INTO intents (bot, symbol, tag, reason, intent, ts) VALUES (?, 'XAAAUSDT', 't', 'r', '{}', ?)`,
      ).run(bot, close + lateMs);
      return oid;
    };
    const fill = (bot: string, side: 'buy' | 'sell', size: string, ts: number, oid: string | null) =>
      db
        .prepare(
          `INSERT INTO fills (exec_id, bot, symbol, base_coin, quote_coin, side, price, size, fee, fee_coin, ts, client_oid)
           VALUES (?, ?, 'XAAAUSDT', 'XAAA', 'USDT', ?, '20', ?, '0', 'USDT', ?, ?)`,
        )
        .run(`${bot}-${ts}`, bot, side, size, ts, oid);
    // Day 1: bot1 buys 1 and sells 0.995 (0.005 of dust left); bot2 trades; a stale signal is denied.
    const a = order('bot1', START + 10 * MIN, 5_000, 'acked');
    fill('bot1', 'buy', '1', START + 10 * MIN + 6_000, a);
    const b = order('bot1', START + 20 * MIN, 15_000, 'acked');
    fill('bot1', 'sell', '0.995', START + 20 * MIN + 16_000, b);
    order('bot2', START + 30 * MIN, 30_000, 'acked');
    db.prepare(
      `INSERT INTO denials (bot, symbol, code, message, intent, ts) VALUES ('bot2', 'XAAAUSDT', 'STALE_SIGNAL', 'm', '{}', ?)`,
    ).run(START + 40 * MIN);
    db.prepare(
      `INSERT INTO intents (bot, symbol, tag, reason, intent, ts) VALUES ('bot2', 'XAAAUSDT', 't', 'r', '{}', ?)`,
    ).run(START + 40 * MIN);
    // Day 2 (Tuesday, open all day): bot2 has an order rejected; bot1 does nothing.
    order('bot2', START + DAY_MS + 60 * MIN, 1_000, 'rejected');
    store.close();

    const days = journalDays(path, START, START + 2 * DAY_MS, [START + DAY_MS + 5 * MIN], 1);
    expect(
      days.map((d) => [d.day, d.intents, d.orders, d.rejected, d.fills, d.staleSignal, d.unbooked]),
    ).toEqual([
      [1, 4, 3, 0, 2, 1, 0],
      [2, 1, 1, 1, 0, 0, 1],
    ]);
    // bot2's market order was acknowledged with no fill journaled under its clientOid.
    expect(days[0]?.ackedWithoutFill).toBe(1);
    expect([days[0]?.latenessP50, days[0]?.latenessP99]).toEqual([15, 30]);
    expect(days[0]?.dustStopped).toEqual([]); // it made orders that day
    expect(days[1]?.dustStopped).toEqual(['bot1']);
    expect(days[1]?.openHours).toBeGreaterThan(6);
  });
});
