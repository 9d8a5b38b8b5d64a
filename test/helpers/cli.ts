// Spawns the real `tradebot` command: the built output (as the container runs it) when it exists,
// otherwise the TypeScript entry point through tsx.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..', '..');
const built = join(root, 'dist', 'src', 'cli', 'main.js');

export const cliCommand = (): string[] =>
  existsSync(built) ? [built] : ['--import', 'tsx', join(root, 'src', 'cli', 'main.ts')];

export interface Running {
  readonly proc: ChildProcessWithoutNullStreams;
  stdout: string;
  stderr: string;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Resolves when stderr or stdout matches, rejects after `ms`. */
  waitFor(re: RegExp, ms: number): Promise<RegExpMatchArray>;
}

export interface StartOptions {
  /**
   * Caps the size of every file the command writes (RLIMIT_FSIZE, in 512-byte blocks), with SIGXFSZ
   * ignored so a write past it fails with EFBIG: a full disk injected below the store, for machines that
   * cannot mount a tiny tmpfs.
   */
  readonly maxFileBlocks?: number | undefined;
  /** Runs the command as this user and group (root only), e.g. so that file permissions apply. */
  readonly user?: { readonly uid: number; readonly gid: number } | undefined;
}

export function startCli(
  args: readonly string[],
  env: NodeJS.ProcessEnv = {},
  cwd = root,
  opts: StartOptions = {},
): Running {
  const argv = [...cliCommand(), ...args];
  const spawnOpts = {
    cwd,
    env: { ...process.env, ...env },
    stdio: ['pipe', 'pipe', 'pipe'] as ['pipe', 'pipe', 'pipe'],
    ...(opts.user ?? {}),
  };
  const proc =
    opts.maxFileBlocks === undefined
      ? spawn(process.execPath, argv, spawnOpts)
      : spawn(
          '/bin/sh',
          [
            '-c',
            `trap '' XFSZ; ulimit -f ${Math.trunc(opts.maxFileBlocks)}; exec "$0" "$@"`,
            process.execPath,
            ...argv,
          ],
          spawnOpts,
        );
  let closed = false;
  proc.on('close', () => (closed = true));
  const r: Running = {
    proc,
    stdout: '',
    stderr: '',
    exited: new Promise((resolve) => proc.on('close', (code, signal) => resolve({ code, signal }))),
    waitFor(re, ms) {
      return new Promise((resolve, reject) => {
        const check = (): boolean => {
          const m = r.stderr.match(re) ?? r.stdout.match(re);
          if (m) {
            clearInterval(t);
            clearTimeout(to);
            resolve(m);
          }
          return m !== null;
        };
        const t = setInterval(() => {
          if (check()) return;
          // A command whose output has closed will never print the line: fail now, not at the cap.
          if (closed) {
            clearInterval(t);
            clearTimeout(to);
            reject(
              new Error(
                `the command exited (${String(proc.exitCode ?? proc.signalCode)}) before printing ${re}; stderr tail:\n${r.stderr.slice(-2000)}`,
              ),
            );
          }
        }, 50);
        const to = setTimeout(() => {
          clearInterval(t);
          reject(
            new Error(`timed out after ${ms} ms waiting for ${re}; stderr tail:\n${r.stderr.slice(-2000)}`),
          );
        }, ms);
        check();
      });
    },
  };
  proc.stdout.on('data', (d: Buffer) => (r.stdout += d.toString()));
  proc.stderr.on('data', (d: Buffer) => (r.stderr += d.toString()));
  return r;
}

/** Runs the command to completion (in `cwd`, default the repository). */
export async function runCli(
  args: readonly string[],
  env: NodeJS.ProcessEnv = {},
  timeoutMs = 30_000,
  cwd = root,
) {
  const r = startCli(args, env, cwd);
  const timer = setTimeout(() => r.proc.kill('SIGKILL'), timeoutMs);
  const { code } = await r.exited;
  clearTimeout(timer);
  return { code, stdout: r.stdout, stderr: r.stderr };
}

/** The address of the dashboard a daemon started by `startCli` logs once it listens. */
export const dashboardUrl = async (d: Running, timeoutMs = 30_000): Promise<string> =>
  (await d.waitFor(/"dashboard listening".*?"url":"([^"]+)"/, timeoutMs))[1] as string;
