// No Docker engine runs here, so this checks what can be checked: the built output starts with the
// container's command line (ENTRYPOINT + CMD of the Dockerfile) and answers the HEALTHCHECK's /healthz.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startCli } from '../helpers/cli.js';
import { demoConfigFile } from '../helpers/demo-config.js';

const dir = mkdtempSync(join(tmpdir(), 'tradebot-docker-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the container command line', () => {
  it('runs the built daemon as the image would and answers /healthz', async () => {
    const dockerfile = readFileSync('Dockerfile', 'utf8');
    const entry = JSON.parse(/^ENTRYPOINT (\[.*\])$/m.exec(dockerfile)?.[1] ?? '[]') as string[];
    const cmd = JSON.parse(/^CMD (\[.*\])$/m.exec(dockerfile)?.[1] ?? '[]') as string[];
    expect(entry).toEqual(['node', 'dist/src/cli/main.js']);
    expect(cmd).toEqual(['run', '--config', '/config/bot.yaml']);
    expect(existsSync('dist/src/cli/main.js'), 'run `npm run build` first (npm test does)').toBe(true);
    expect(dockerfile).toMatch(/^USER node$/m);
    expect(dockerfile).toMatch(/HEALTHCHECK .*\/healthz/s);
    // /config/bot.yaml, mounted in the container, is a file of ours here.
    const bot = demoConfigFile(dir, 'bot');
    const d = startCli(cmd.map((a) => (a === '/config/bot.yaml' ? bot : a)));
    const [, url] = await d.waitFor(/"health and metrics listening".*?"url":"([^"]+)"/, 20_000);
    const res = await fetch(`${url}/healthz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok' });
    // `docker stop` once it runs: a clean stop exits 0 (the daemon's warnings and errors say why if not).
    await d.waitFor(/"message":"running"/, 60_000);
    d.proc.kill('SIGTERM');
    const { code } = await d.exited;
    const said = d.stderr
      .split('\n')
      .filter((l) => /"level":"(warn|error)"/.test(l))
      .slice(-15)
      .join('\n');
    expect(code, `exit code after SIGTERM; the daemon's last warnings:\n${said}`).toBe(0);
  }, 120_000);
});
