// `npm test`'s checks before vitest, at once: typecheck, lint, longest, prettier and the build are independent and
// mostly one core each, so on CI's two cores they take the time of the longest, not of their sum. Each one's
// output is printed whole when it ends, under its name; it exits 1 if any failed, naming them.
import { spawn } from 'node:child_process';

export const CHECKS = ['typecheck', 'lint', 'longest', 'format:check', 'build'] as const;

function run(script: string): Promise<{ script: string; ok: boolean; out: string; seconds: number }> {
  const started = Date.now();
  return new Promise((resolve) => {
    const p = spawn('npm', ['run', '-s', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    p.stdout.on('data', (b: Buffer) => (out += b.toString()));
    p.stderr.on('data', (b: Buffer) => (out += b.toString()));
    p.on('close', (code) => resolve({ script, ok: code === 0, out, seconds: (Date.now() - started) / 1000 }));
  });
}

const results = await Promise.all(
  CHECKS.map((c) =>
    run(c).then((r) => {
      process.stdout.write(
        `${r.ok ? 'ok' : 'FAILED'} npm run ${r.script} (${r.seconds.toFixed(1)} s)\n${r.out}`,
      );
      return r;
    }),
  ),
);
const failed = results.filter((r) => !r.ok).map((r) => r.script);
if (failed.length > 0) {
  process.stderr.write(`checks failed: ${failed.join(', ')}\n`);
  process.exit(1);
}
