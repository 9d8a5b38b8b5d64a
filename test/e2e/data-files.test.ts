// A dataset path that is not a candle file, through the real command: refused by its name with exit 2, not a bare
// EISDIR (issue 28).
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'tradebot-data-files-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('a dataset that is a folder', () => {
  it('is refused by its name with exit 2', async () => {
    const folder = join(dir, 'data.csv');
    mkdirSync(folder);
    const r = await runCli(
      ['backtest', '--dataset', folder, '--strategy', 'ma-crossover'],
      { TRADEBOT_CACHE_DIR: 'off' },
      20_000,
    );
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(`${folder} is a folder, not a candle file: name one file`);
  });
});
