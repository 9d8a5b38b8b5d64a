// The queue's boundaries without Redis: the --queue URL, and how a worker finds (or refuses) a dataset.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseQueueUrl } from '../../../src/research/sweep-queue.js';
import { datasetIdentity, resolveDataset } from '../../../src/research/job.js';

const dir = mkdtempSync(join(tmpdir(), 'tradebot-queue-unit-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the sweep queue boundaries', () => {
  it('reads redis://HOST:PORT[/DB] and refuses anything else with the form to write', () => {
    expect(parseQueueUrl('redis://10.0.0.5:6380/2')).toMatchObject({ host: '10.0.0.5', port: 6380, db: 2 });
    expect(parseQueueUrl('redis://redis')).toMatchObject({ host: 'redis', port: 6379, db: 0 });
    for (const bad of ['http://x:1', 'localhost:6379', 'redis://h:1/x'])
      expect(() => parseQueueUrl(bad)).toThrow(/--queue .*(redis:\/\/HOST:PORT|a number)/);
  });

  it('finds the dataset at its path or by name in --data-dir, and refuses a different or missing file', async () => {
    const a = join(dir, 'a.csv');
    writeFileSync(a, 'one');
    const id = await datasetIdentity(a);
    expect(id.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(await resolveDataset(id)).toBe(a);
    expect(await datasetIdentity('synthetic-1m:1:10')).toEqual({ ref: 'synthetic-1m:1:10' });

    const gone = { ref: join(dir, 'nowhere', 'a.csv'), sha256: id.sha256 };
    await expect(resolveDataset(gone)).rejects.toThrow(/worker has no dataset .*--data-dir/);
    mkdirSync(join(dir, 'data'));
    writeFileSync(join(dir, 'data', 'a.csv'), 'one');
    expect(await resolveDataset(gone, join(dir, 'data'))).toBe(join(dir, 'data', 'a.csv'));
    writeFileSync(join(dir, 'data', 'a.csv'), 'two');
    await expect(resolveDataset(gone, join(dir, 'data'))).rejects.toThrow(
      /worker refused the job: its .*a\.csv is not the sweep's dataset \(SHA-256 [0-9a-f]{12}… here, [0-9a-f]{12}… in the sweep\)/,
    );
  });
});
