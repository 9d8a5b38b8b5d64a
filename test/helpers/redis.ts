// A real redis-server for a test, on a free loopback port, without persistence. When the binary is missing,
// `redisMissing` says how to install it, and tests skip with that sentence in their name (never silently).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';

/**
 * redis-server's environment without libfaketime: `npm run test:dates` runs the suite under faketime, and
 * redis-server hangs at start under it. Redis is a store the queue talks to, not a clock under test.
 */
const redisEnv = (): NodeJS.ProcessEnv => {
  const env = { ...process.env };
  delete env.LD_PRELOAD;
  delete env.FAKETIME;
  return env;
};

export const redisMissing: string | undefined =
  spawnSync('redis-server', ['--version'], { env: redisEnv(), timeout: 10_000 }).status === 0
    ? undefined
    : 'SKIPPED: redis-server not found; install it (Debian/Ubuntu: apt-get install -y redis-server; .ci/run does)';

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const a = s.address();
      s.close(() => (typeof a === 'object' && a ? resolve(a.port) : reject(new Error('no port'))));
    });
  });

export interface RedisServer {
  readonly url: string;
  stop(): Promise<void>;
}

/** Starts redis-server and resolves once it accepts connections. */
export async function startRedis(): Promise<RedisServer> {
  const port = await freePort();
  const proc: ChildProcess = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: ['ignore', 'pipe', 'pipe'], env: redisEnv() },
  );
  let out = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`redis-server did not start:\n${out}`)), 20_000);
    proc.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('Ready to accept connections')) {
        clearTimeout(timer);
        resolve();
      }
    });
    proc.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`redis-server exited with ${code}:\n${out}`));
    });
  });
  return {
    url: `redis://127.0.0.1:${port}`,
    stop: () =>
      new Promise<void>((resolve) => {
        if (proc.exitCode !== null) return resolve();
        proc.once('exit', () => resolve());
        proc.kill('SIGTERM');
      }),
  };
}
