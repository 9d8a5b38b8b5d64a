// The built CLI as a user runs it, for the benches and scripts that measure the daemon from outside:
// `tradebot sim` and `tradebot run` in processes of their own, a deployment written for a remote simulator,
// the daemon's /metrics read, percentiles. The CLI is dist/ (run `npm run build` first).
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { stringify } from 'yaml';

const root = join(import.meta.dirname, '..', '..');
const cli = join(root, 'dist', 'src', 'cli', 'main.js');

/** Percentile `p` (0-100) of `xs`, nearest rank; NaN for none. */
export function pct(xs: readonly number[], p: number): number {
  if (xs.length === 0) return Number.NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] as number;
}

/** A CLI process and what it said. */
export interface CliProcess {
  readonly proc: ChildProcess;
  readonly pid: number;
  output(): string;
  /** Resolves with the first line matching `re` (or rejects after `capMs` or at the process's exit). */
  waitFor(re: RegExp, capMs: number): Promise<string>;
  /** SIGTERM, then SIGKILL after 10 s; resolves at the exit. */
  stop(): Promise<void>;
}

/**
 * Runs `tradebot <args>` from dist/; exits 2 with the fix when dist/ is missing. `onLine` hears every whole
 * line the process writes (stdout and stderr), from the first.
 */
export function startCli(
  args: readonly string[],
  env: NodeJS.ProcessEnv = {},
  onLine?: (line: string) => void,
): CliProcess {
  if (!existsSync(cli)) {
    process.stderr.write(`the built CLI ${cli} is missing: run \`npm run build\` first\n`);
    process.exit(2);
  }
  // TRADEBOT_BENCH_PROF=<dir>: each process writes a CPU profile there at its exit (where the time went).
  const profDir = process.env.TRADEBOT_BENCH_PROF;
  const prof = profDir ? ['--cpu-prof', `--cpu-prof-dir=${profDir}`] : [];
  const proc = spawn(process.execPath, [...prof, cli, ...args], {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const waiters = new Set<() => void>();
  const onData = (b: Buffer) => {
    // The last 64 kB is plenty for a failure's context; a long run must not keep every log line.
    out = (out + b.toString()).slice(-65_536);
    for (const w of waiters) w();
  };
  proc.stdout?.on('data', onData);
  proc.stderr?.on('data', onData);
  if (onLine !== undefined) {
    // One line buffer per stream: a chunk may end mid-line.
    const lines = () => {
      let rest = '';
      return (b: Buffer) => {
        const parts = (rest + b.toString()).split('\n');
        rest = parts.pop() ?? '';
        for (const l of parts) onLine(l);
      };
    };
    proc.stdout?.on('data', lines());
    proc.stderr?.on('data', lines());
  }
  const exited = new Promise<void>((resolve) => proc.once('close', () => resolve()));
  return {
    proc,
    pid: proc.pid ?? -1,
    output: () => out,
    waitFor: (re, capMs) =>
      new Promise((resolve, reject) => {
        const check = () => {
          const line = out.split('\n').find((l) => re.test(l));
          if (line === undefined) return;
          done();
          resolve(line);
        };
        const done = () => {
          waiters.delete(check);
          clearTimeout(timer);
        };
        const timer = setTimeout(() => {
          done();
          reject(new Error(`no line matching ${re} within ${capMs} ms:\n${out.slice(-3000)}`));
        }, capMs);
        void exited.then(() => {
          if (!waiters.has(check)) return;
          done();
          reject(new Error(`exited before a line matching ${re}:\n${out.slice(-3000)}`));
        });
        waiters.add(check);
        check();
      }),
    async stop() {
      if (proc.exitCode !== null || proc.signalCode !== null) return;
      proc.kill('SIGTERM');
      const t = setTimeout(() => proc.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(t);
    },
  };
}

/** The account of the simulator the benches start (passed to the daemon through the environment). */
export const BENCH_CREDS = { apiKey: 'bench-key', apiSecret: 'bench-secret', passphrase: 'bench-pass' };
export const BENCH_ENV = {
  BENCH_KEY: BENCH_CREDS.apiKey,
  BENCH_SECRET: BENCH_CREDS.apiSecret,
  BENCH_PASS: BENCH_CREDS.passphrase,
};

export interface SimProcessOptions {
  readonly speed: number;
  readonly startTime: string;
  readonly extraPairs?: number;
  readonly rateLimits?: boolean;
}

/** `tradebot sim` in a process of its own (a venue is remote), with the bench account; answers its URL. */
export async function startSimProcess(o: SimProcessOptions): Promise<{ sim: CliProcess; baseUrl: string }> {
  const args = ['sim', '--port', '0', '--seed', '7', '--speed', String(o.speed), '--start-time', o.startTime];
  args.push('--api-key', BENCH_CREDS.apiKey, '--api-secret', BENCH_CREDS.apiSecret);
  args.push('--passphrase', BENCH_CREDS.passphrase, '--whitelisted');
  if (o.extraPairs !== undefined) args.push('--extra-pairs', String(o.extraPairs));
  if (o.rateLimits === false) args.push('--no-rate-limits');
  const sim = startCli(args);
  const line = await sim.waitFor(/listening on /, 60_000);
  return { sim, baseUrl: line.replace(/.*listening on /, '').trim() };
}

/** A free loopback port (for the daemon's metrics server, whose port 0 would have to be read from its log). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const a = s.address();
      s.close(() => (typeof a === 'object' && a !== null ? resolve(a.port) : reject(new Error('no port'))));
    });
  });
}

export interface BenchBot {
  readonly name: string;
  readonly symbols: readonly string[];
  /** Default the every-candle fixture (an order on every candle). */
  readonly strategy?: string;
  readonly params?: Readonly<Record<string, unknown>>;
}

/** Writes a deployment of `bots` against a remote venue; answers its path. */
export function writeDeployment(
  dir: string,
  o: { baseUrl: string; speed: number; metricsPort: number; bots: readonly BenchBot[] },
): string {
  const cfg = {
    venue: {
      kind: 'remote',
      baseUrl: o.baseUrl,
      credentials: { apiKey: '${BENCH_KEY}', apiSecret: '${BENCH_SECRET}', passphrase: '${BENCH_PASS}' },
      whitelisted: true,
      timeScale: o.speed,
    },
    store: { path: join(dir, 'journal.db') },
    logging: { level: 'info', format: 'json' },
    metrics: { enabled: true, host: '127.0.0.1', port: o.metricsPort },
    status: { enabled: false },
    // Bots sharing a symbol on one account share its fills in the order their orders were placed.
    ...(new Set(o.bots.flatMap((b) => b.symbols)).size < o.bots.flatMap((b) => b.symbols).length
      ? { fillAttribution: 'fifo' }
      : {}),
    bots: o.bots.map((b) => ({
      name: b.name,
      strategy: b.strategy ?? './bench/fixtures/every-candle.ts',
      params: b.params ?? { quoteAmount: '100' },
      symbols: [...b.symbols],
      interval: '1m',
      capital: '100000',
      risk: {
        allowedSessions: ['pre_market', 'regular', 'after_hours', 'overnight'],
        maxDataAgeMs: 600_000,
        whitelisted: true,
      },
    })),
  };
  const f = join(dir, 'deployment.yaml');
  writeFileSync(f, stringify(cfg));
  return f;
}

/**
 * The daemon running a deployment; resolves once it says it is running (within `capMs`: bots start one
 * after another, so a deployment of many bots needs more), or stops it and rejects.
 */
export async function startDaemon(
  configPath: string,
  capMs = 120_000,
  onLine?: (line: string) => void,
): Promise<CliProcess> {
  const d = startCli(['run', '--config', configPath], BENCH_ENV, onLine);
  try {
    await d.waitFor(/"message":"running"/, capMs);
  } catch (err) {
    await d.stop();
    throw err;
  }
  return d;
}

/** The daemon's /metrics, each sample's value summed over its labels, by metric name (and `name{labels}`). */
export async function scrapeMetrics(port: number): Promise<Map<string, number>> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line.startsWith('#') || line.trim() === '') continue;
    const m = /^([a-zA-Z_:][\w:]*)(\{[^}]*\})?\s+(\S+)/.exec(line);
    if (m === null) continue;
    const v = Number(m[3]);
    const name = m[1] as string;
    out.set(name, (out.get(name) ?? 0) + v);
    if (m[2] !== undefined) out.set(`${name}${m[2]}`, v);
  }
  return out;
}
