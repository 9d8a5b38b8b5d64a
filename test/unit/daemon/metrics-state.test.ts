// The trading state on /metrics is read from the running bots at each scrape: a bot HALTED under the operator's
// pause shows HALTED 1 and PAUSED 1 (it showed PAUSED 0, and a resume under the halt changed nothing shown).
import { describe, expect, it } from 'vitest';
import { DaemonMetrics } from '../../../src/daemon/metrics.js';

describe('tradebot_trading_state', () => {
  it('says HALTED and PAUSED for a bot halted while paused, and follows a resume at the next scrape', async () => {
    const m = new DaemonMetrics();
    let paused = true;
    m.tradingStatesOf = () => [['a', { state: 'HALTED', paused }] as const];
    const line = (text: string, state: string) =>
      new RegExp(`^tradebot_trading_state\\{bot="a",state="${state}"\\} (\\d)$`, 'm').exec(text)?.[1];
    let text = await m.registry.metrics();
    expect([line(text, 'HALTED'), line(text, 'PAUSED'), line(text, 'ACTIVE')]).toEqual(['1', '1', '0']);
    paused = false;
    text = await m.registry.metrics();
    expect([line(text, 'HALTED'), line(text, 'PAUSED')]).toEqual(['1', '0']);
  });
});
