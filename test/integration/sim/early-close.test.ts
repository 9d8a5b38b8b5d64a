// The simulator keeps the early closes the calendar publishes: a Reality order at 13:30 ET on the day
// after Thanksgiving is refused, the same order at 12:30 ET is accepted, and the calendar endpoint
// carries the closure with its times (spec 2.17).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VenueError } from '../../../src/api/index.js';
import { RestClient } from '../../../src/client/index.js';
import { VirtualClock } from '../../../src/feeds/clock.js';
import { calendarFromWire } from '../../../src/feeds/session.js';
import { etToUtc, usSessionAt } from '../../../src/market/sessions.js';
import { startSimulator, type Simulator } from '../../../src/sim/index.js';

const CREDS = { apiKey: 'k', apiSecret: 's', passphrase: 'p' };

describe('simulator on an early-close day', () => {
  let sim: Simulator;
  let clock: VirtualClock;
  let client: RestClient;
  beforeAll(async () => {
    clock = new VirtualClock(etToUtc('2026-11-27', 12, 30));
    sim = await startSimulator({ seed: 3, clock, accounts: [{ ...CREDS, balances: { USDT: '100000' } }] });
    client = new RestClient({ baseUrl: sim.baseUrl, clock, credentials: CREDS });
  });
  afterAll(async () => {
    client.close();
    await sim.stop();
  });

  it('publishes the early close with its times and refuses a Reality order at 13:30 ET', async () => {
    const cal = await client.marketCalendar();
    expect(cal.specificConfig).toContainEqual({
      remark: 'Early close (day after Thanksgiving)',
      startTime: '2026-11-27 13:00',
      endTime: '2026-11-27 20:00',
    });
    expect(usSessionAt(etToUtc('2026-11-27', 13, 30), calendarFromWire(cal)).session).toBe('closed');

    const order = { symbol: 'AAPLUSDT', side: 'buy', orderType: 'market', qty: '100' } as const;
    await expect(client.placeRealityOrder(order)).resolves.toMatchObject({ orderId: expect.any(String) });
    clock.set(etToUtc('2026-11-27', 13, 30));
    const refused = client.placeRealityOrder(order);
    await expect(refused).rejects.toBeInstanceOf(VenueError);
    await expect(refused).rejects.toMatchObject({
      code: '95246',
      msg: expect.stringContaining('Early close'),
    });
  });
});
