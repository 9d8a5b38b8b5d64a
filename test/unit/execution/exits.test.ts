// Each exit and protection on hand-computed candles through the backtester (the one pipeline on the
// in-process venue): the fills' prices, sizes and exit reasons are worked out in the case table.
import { describe, expect, it } from 'vitest';
import { runBacktest } from '../../../src/backtest/engine.js';
import type { TraderFill } from '../../../src/execution/trader.js';
import { parseExitRules, parseProtections } from '../../../src/strategy/exits.js';
import { EXIT_CASES, RISK, caseSource, entryScript } from '../../integration/backtest/fixtures/exit-cases.js';

describe('exits and protections in a backtest', () => {
  it.each(EXIT_CASES.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    const fills: TraderFill[] = [];
    const denied: string[] = [];
    const locks: string[] = [];
    const r = await runBacktest({
      source: caseSource(c),
      dataset: 'exit-case',
      strategy: entryScript,
      params: { buyAt: c.buyAt ?? [0] },
      risk: RISK,
      capital: '10000',
      feeRate: '0',
      slippageBps: c.slippageBps ?? 0,
      exits: parseExitRules(c.exits, 'case'),
      protections: parseProtections(c.protections ?? {}, 'case'),
      onEvent: (e) => {
        if (e.type === 'fill') fills.push(e.fill);
        if (e.type === 'denied') denied.push(`${e.intent.tag} ${e.code}`);
        if (e.type === 'protection') locks.push(e.lock.protection);
      },
    });
    expect(r.fills.map((f) => `${f.side} ${f.price} ${f.size} ${f.tag}`)).toEqual(c.fills);
    expect(denied).toEqual(c.denied ?? []);
    // Each protection that refused an entry was announced as a pipeline event (logged by the daemon).
    expect(locks).toEqual(Object.keys(c.protections ?? {}));
    // Each exit fill carries its reason in the pipeline's fill event.
    for (const f of fills) expect(f.exitReason).toBe(f.tag === 'entry' ? undefined : f.tag);
  });

  it('leaves a strategy without exits to its own orders', async () => {
    const c = EXIT_CASES[0];
    if (c === undefined) throw new Error('no case');
    const r = await runBacktest({
      source: caseSource(c),
      dataset: 'exit-case',
      strategy: entryScript,
      risk: RISK,
      capital: '10000',
      feeRate: '0',
    });
    expect(r.fills.map((f) => `${f.side} ${f.price} ${f.size} ${f.tag}`)).toEqual(['buy 100 10 entry']);
  });
});
