// Where a paper run records its candles: `--record-candles DIR` (run --paper), else the live file's
// `paper: { record: { dir } }` block, which is the venue's and not the paper account's.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { loadDeployment } from '../../../src/config/deployment.js';

const dir = mkdtempSync(join(tmpdir(), 'tradebot-paper-record-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** config/live.example.yaml with a `paper:` block. */
function liveFile(paper: unknown): string {
  const live = parse(readFileSync('config/live.example.yaml', 'utf8')) as Record<string, unknown>;
  const f = join(dir, `live-${Math.random().toString(36).slice(2)}.yaml`);
  writeFileSync(f, stringify({ ...live, paper }));
  return f;
}
const env = { TRADEBOT_BASE_URL: 'http://127.0.0.1:1' };

describe('run --paper: where the candles are recorded', () => {
  it("takes the paper block's record as the venue's, its balances as the account's", async () => {
    const f = liveFile({ balances: { USDT: '8000' }, record: { dir: 'paper-candles' } });
    const { config } = await loadDeployment(f, env, {});
    expect(config.venue.kind).toBe('paper');
    if (config.venue.kind !== 'paper') return;
    expect(config.venue.record).toEqual({ dir: 'paper-candles' });
    expect(config.venue.account.balances).toEqual({ USDT: '8000' });
  });

  it('lets --record-candles override the block, and records nothing when neither says so', async () => {
    const f = liveFile({ record: { dir: 'from-file' } });
    const flagged = (await loadDeployment(f, env, { recordDir: 'from-flag' })).config.venue;
    expect(flagged.kind === 'paper' && flagged.record).toEqual({ dir: 'from-flag' });
    const none = (await loadDeployment(liveFile(undefined), env, {})).config.venue;
    expect(none.kind === 'paper' && none.record).toBeUndefined();
  });

  it('refuses a record block without its folder, naming the field and the fix', async () => {
    await expect(loadDeployment(liveFile({ record: {} }), env, {})).rejects.toThrow(
      /record\.dir is the folder the candles are recorded into, e\.g\. paper-candles/,
    );
  });
});
