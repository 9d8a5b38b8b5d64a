// Runs the benchmarks one after another, each in a fresh process (a benchmark's JIT and heap must not
// warm the next one), and stops at the first that fails.
//   npm run bench                       every benchmark
//   npm run bench -- backtest sweep     only these (names of files in bench/)
//   npm run bench -- backtest --candles 200000    flags after the names go to each benchmark
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const all = readdirSync(here)
  .filter((f) => f.endsWith('.ts') && f !== 'run.ts')
  .map((f) => f.slice(0, -3))
  .sort();
const args = process.argv.slice(2);
const firstFlag = args.findIndex((a) => a.startsWith('--'));
const names = firstFlag < 0 ? args : args.slice(0, firstFlag);
const flags = firstFlag < 0 ? [] : args.slice(firstFlag);
const unknown = names.filter((n) => !all.includes(n));
if (unknown.length > 0) {
  console.error(`no benchmark named ${unknown.join(', ')}; the benchmarks are: ${all.join(', ')}`);
  process.exit(2);
}
for (const name of names.length > 0 ? names : all) {
  console.log(`\n== bench/${name}.ts ${flags.join(' ')}`);
  const r = spawnSync(process.execPath, ['--import', 'tsx', join(here, `${name}.ts`), ...flags], {
    stdio: 'inherit',
  });
  if (r.status !== 0) {
    console.error(`bench/${name}.ts failed (exit ${r.status ?? r.signal})`);
    process.exit(1);
  }
}
