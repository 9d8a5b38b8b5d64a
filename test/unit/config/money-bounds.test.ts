// Money from a file or a flag is bounded (issue 40): a fee rate is a fraction of a fill (2 is refused, not
// charged as 200%), an amount has at most 15 digits before its point (401 digits used to be journaled as
// 1e+400), a coin given twice in --paper-balances is refused instead of the last one kept, and bots cannot be
// given more capital than their paper account holds.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BacktestConfigSchema, ConfigError, loadDeployment } from '../../../src/config/index.js';
import { parsePaperBalances } from '../../../src/config/paper.js';

const dir = mkdtempSync(join(tmpdir(), 'tradebot-money-bounds-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;

async function problems(text: string): Promise<string> {
  const p = join(dir, `d${++n}.yaml`);
  writeFileSync(p, text);
  try {
    await loadDeployment(p, {});
  } catch (e) {
    if (e instanceof ConfigError) return e.problems.map((x) => `${x.path}: ${x.message}`).join('\n');
    throw e;
  }
  return '';
}

const paper = (balances: string, capitals: readonly string[]) => `venue:
  kind: paper
  baseUrl: http://127.0.0.1:9
  account: { balances: ${balances} }
bots:
${capitals.map((c, i) => `  - { name: b${i}, strategy: ma-crossover, symbols: [${['AAPLUSDT', 'TSLAUSDT'][i] ?? ''}], capital: '${c}' }`).join('\n')}
`;

describe('money from a file or a flag is bounded', () => {
  it('--paper-balances refuses a coin given twice, and an amount of 401 digits', () => {
    expect(parsePaperBalances('USDT=1,USDT=2')).toBe(
      '--paper-balances names USDT twice (USDT=1 and USDT=2); give each coin once',
    );
    expect(parsePaperBalances(`USDT=${'9'.repeat(401)}`)).toMatch(
      /^--paper-balances: USDT 9{20}…\(401 characters\) has more than 15 digits before the point/,
    );
    expect(parsePaperBalances('USDT=10000,AAPL=5')).toEqual({ USDT: '10000', AAPL: '5' });
  });

  it('a fee rate above 10% is refused in a deployment and in a backtest, naming the field', async () => {
    expect(
      await problems(`venue: { kind: simulator, account: { feeRate: '2' } }
bots: [{ name: one, strategy: ma-crossover }]
`),
    ).toMatch(
      /venue\.account\.feeRate: feeRate is a fraction of each fill \(0\.001 is 0\.1%\), at most 0\.1/,
    );
    const bt = BacktestConfigSchema.safeParse({ strategy: 'ma-crossover', data: 'x.csv', feeRate: '2' });
    expect(bt.success).toBe(false);
    expect(JSON.stringify(bt.error?.issues)).toMatch(/feeRate is a fraction of each fill/);
    expect(await problems(paper("{ USDT: '10000' }", ['10000']))).toBe('');
  });

  it("bots' capital above what the paper account holds is refused with the sum and the fix", async () => {
    expect(await problems(paper("{ USDT: '10000' }", ['6000', '6000']))).toContain(
      "venue.account.balances.USDT: the bots' capital in USDT adds up to 12000 but the paper account starts with 10000 USDT; raise the balance (or --paper-balances USDT=12000) or lower the bots' capital",
    );
    expect(await problems(paper("{ USDT: '12000' }", ['6000', '6000']))).toBe('');
  });

  it('a capital or a balance with more than 15 digits before the point is refused', async () => {
    expect(await problems(paper(`{ USDT: '${'1'.repeat(30)}' }`, ['10000']))).toMatch(
      /balances\.USDT: balance 1{30} has more than 15 digits/,
    );
  });
});
