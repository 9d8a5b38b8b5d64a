// The demo deployment (config/demo.yaml, what the README's first command runs) as a test runs it: its journal in
// the test's folder, its metrics and dashboard on free ports. Test files run in parallel (and `npm run test:dates`
// runs several dates at once), so a fixed port such as the demo's 8787 would make two of them collide.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';

/** The parts of the demo file the tests change; the rest is kept as read. */
export interface DemoConfig {
  venue: { kind: string; speed: number; [key: string]: unknown };
  store: { path: string };
  metrics: { port: number; enabled?: boolean };
  dashboard: { port: number; enabled: boolean };
  logging: { format: string; level: string };
  bots: ({ name: string; symbols: string[]; risk?: Record<string, unknown> } & Record<string, unknown>)[];
  [key: string]: unknown;
}

/** config/demo.yaml, parsed, with the journal at `storePath` and every listening port free (0). */
export function demoConfig(storePath: string): DemoConfig {
  const demo = parse(readFileSync('config/demo.yaml', 'utf8')) as DemoConfig;
  demo.store.path = storePath;
  demo.metrics.port = 0;
  demo.dashboard.port = 0;
  return demo;
}

/**
 * Writes the demo deployment to `dir/name.yaml` with its journal at `dir/name.db` and free ports, after `change`
 * edits it; returns the file's path.
 */
export function demoConfigFile(
  dir: string,
  name: string,
  change: (demo: DemoConfig) => void = () => undefined,
): string {
  const demo = demoConfig(join(dir, `${name}.db`));
  change(demo);
  const f = join(dir, `${name}.yaml`);
  writeFileSync(f, stringify(demo));
  return f;
}

/**
 * A deployment on a remote simulator (`baseUrl`, running `speed` times real time) with the simulator account's
 * keys read from ${K}, ${S} and ${P} (pass them in the daemon's environment), JSON logs, metrics and dashboard on
 * free ports, its journal at `dir/name.db`; `extra` adds or replaces top-level keys (bots, notify...). Written to
 * `dir/name.yaml`; returns that path.
 */
export function remoteConfigFile(
  dir: string,
  name: string,
  o: { baseUrl: string; speed: number },
  extra: Record<string, unknown>,
): string {
  const f = join(dir, `${name}.yaml`);
  writeFileSync(
    f,
    stringify({
      venue: {
        kind: 'remote',
        baseUrl: o.baseUrl,
        credentials: { apiKey: '${K}', apiSecret: '${S}', passphrase: '${P}' },
        whitelisted: true,
        timeScale: o.speed,
      },
      store: { path: join(dir, `${name}.db`) },
      logging: { level: 'info', format: 'json' },
      metrics: { enabled: true, port: 0 },
      dashboard: { enabled: true, port: 0 },
      ...extra,
    }),
  );
  return f;
}

/**
 * A bot that trades often on 1m candles (ma-crossover 2/4, 300 USDT a buy, 10000 USDT of capital), for
 * deployments whose tests need fills within seconds at speed 60; `extra` adds or replaces its keys.
 */
export const busyBot = (name: string, symbol: string, extra: Record<string, unknown> = {}) => ({
  name,
  strategy: 'ma-crossover',
  params: { fast: 2, slow: 4, quoteAmount: '300' },
  symbols: [symbol],
  interval: '1m',
  capital: '10000',
  ...extra,
});
