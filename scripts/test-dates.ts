// `npm run test:dates`: the tests that touch a clock, run under libfaketime on the dates that break
// date-dependent code (a weekend, holidays, an early close, both DST switches, a leap day), so a test that
// passes on a Tuesday and fails on a Saturday is found on any day. Not part of `npm test`: it runs the
// selected files once per date (about a minute each on 2 cores).
//
//   npm run test:dates                       every date, the clock-touching tests
//   npm run test:dates -- --all              every date, the whole suite (slow: about 10 min a date)
//   npm run test:dates -- --date saturday    one date (see DATES for the names)
//   npm run test:dates -- --list             the dates and the selected test files, nothing run
//   npm run test:dates -- --except FILE...   leave the named test files out
import { spawn, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { Command } from 'commander';

/** Each date as the UTC time the clock reads when the date's run starts (then it ticks). */
export const DATES: readonly { name: string; at: string; why: string }[] = [
  { name: 'saturday', at: '2026-11-28 16:00:00', why: 'Saturday 11:00 ET: weekly closure' },
  {
    name: 'sunday-evening',
    at: '2026-11-30 00:30:00',
    why: 'Sunday 19:30 ET, 30 min before the overnight open',
  },
  { name: 'thanksgiving', at: '2026-11-26 16:00:00', why: 'Thanksgiving Day: holiday closure' },
  {
    name: 'day-after-thanksgiving',
    at: '2026-11-27 18:30:00',
    why: 'Friday 13:30 ET: after the early close',
  },
  { name: 'christmas', at: '2026-12-25 16:00:00', why: 'Christmas Day: holiday closure' },
  { name: 'dst-start', at: '2026-03-08 06:59:00', why: 'the minute before 02:00 EST becomes 03:00 EDT' },
  { name: 'dst-end', at: '2026-11-01 05:59:00', why: 'the minute before 02:00 EDT becomes 01:00 EST' },
  { name: 'new-year-2027', at: '2027-01-01 16:00:00', why: "New Year's Day 2027: holiday closure" },
  { name: 'leap-day-2028', at: '2028-02-29 16:00:00', why: '2028-02-29: a leap day' },
];

/**
 * A test touches a clock when it starts a simulator or a daemon, reads the wall clock, or asks for a session or
 * a calendar: those are the files a date can change. The rest (pure rules, formats, backtests on recorded
 * candles with their own times) run the same on any date.
 */
const TOUCHES_A_CLOCK =
  /startSimulator|startLiveVenue|kind: '?simulator|'sim'|'run'|Date\.now\(\)|new Date\(\)|liveClock|usSessionAt|nextAllowedSession|calendar|session\$|cron/;

function testFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...testFiles(p));
    else if (name.endsWith('.test.ts')) out.push(p);
  }
  return out;
}

/**
 * Test files that fail under libfaketime at any offset, +0 (today) included: the harness, not the date. Each is
 * left out with its reason, which `--list` prints.
 */
export const FAILS_UNDER_FAKETIME: Readonly<Record<string, string>> = {
  'test/e2e/status-tty.test.ts':
    'util-linux `script` runs the daemon in a pseudo-terminal; under libfaketime the daemon there often exits 1 on Ctrl-C whatever the offset (3 of 3 at +0, today), so a failure says nothing about dates',
};

export function clockTests(root: string): string[] {
  return testFiles(join(root, 'test'))
    .filter((f) => TOUCHES_A_CLOCK.test(readFileSync(f, 'utf8')))
    .filter((f) => FAILS_UNDER_FAKETIME[relative(root, f)] === undefined)
    .map((f) => relative(root, f))
    .sort();
}

const FAKETIME_MISSING =
  'faketime not found: install it (Debian/Ubuntu: apt-get install -y faketime; macOS: brew install libfaketime), then run npm run test:dates again';

/** Text without terminal colours (vitest colours its output even into a pipe). */
// eslint-disable-next-line no-control-regex
const plain = (text: string): string => text.replace(/\x1b\[[0-9;]*m/g, '');

function summaryOf(output: string): { files: string; tests: string; ok: boolean } {
  const text = plain(output);
  const files = /Test Files\s+(.+)/.exec(text)?.[1]?.trim() ?? 'no summary';
  const tests = /\n\s+Tests\s+(.+)/.exec(text)?.[1]?.trim() ?? 'no summary';
  return { files, tests, ok: !/failed/.test(files) && !/failed/.test(tests) && files !== 'no summary' };
}

/** Runs the files under faketime at `at`; each finished test file is said as it ends (the run takes minutes). */
async function runOn(
  name: string,
  at: string,
  files: readonly string[],
): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    // An offset, not an absolute start ("@..."): with "@" every process a test spawns starts its clock at that
    // instant again, so a daemon and the test that spawned it would disagree by the test's age.
    const offset = Math.round((Date.parse(`${at.replace(' ', 'T')}Z`) - Date.now()) / 1000);
    const child = spawn(
      'faketime',
      ['-f', `${offset >= 0 ? '+' : ''}${offset}`, 'npx', 'vitest', 'run', ...files],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { ...process.env, NO_COLOR: '1' },
      },
    );
    let output = '';
    let partial = '';
    child.stdout.on('data', (d: Buffer) => {
      output += d.toString();
      const lines = (partial + d.toString()).split('\n');
      partial = lines.pop() ?? '';
      for (const l of lines.map(plain))
        if (/^ (✓|❯|×) test\//.test(l)) process.stdout.write(`  ${name}: ${l.trim()}\n`);
    });
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.on('close', (code) => resolve({ code: code ?? 1, output }));
  });
}

async function main(): Promise<void> {
  const f = new Command('test:dates')
    .description('runs the clock-touching tests under faketime on dates that break date-dependent code')
    .option('--all', 'the whole suite instead of the clock-touching tests')
    .option('--date <name...>', `only these dates (${DATES.map((d) => d.name).join(', ')})`)
    .option('--except <file...>', 'leave these test files out (e.g. the slowest, when time is short)')
    .option('--list', 'print the dates and the selected files, run nothing')
    .exitOverride((e) => process.exit(e.exitCode === 0 ? 0 : 2))
    .parse(process.argv)
    .opts<{ all?: boolean; date?: string[]; except?: string[]; list?: boolean }>();
  const unknown = (f.date ?? []).filter((n) => !DATES.some((d) => d.name === n));
  if (unknown.length > 0) {
    process.stderr.write(
      `--date: unknown ${unknown.join(', ')}; the dates are ${DATES.map((d) => d.name).join(', ')}\n`,
    );
    process.exit(2);
  }
  const dates = f.date === undefined ? DATES : DATES.filter((d) => f.date?.includes(d.name));
  const root = process.cwd();
  const files = f.all ? [] : clockTests(root).filter((x) => !(f.except ?? []).includes(x));
  if (f.list) {
    for (const d of dates) process.stdout.write(`${d.name.padEnd(24)} @${d.at} UTC  ${d.why}\n`);
    process.stdout.write(
      `${f.all ? 'the whole suite' : `${files.length} test files:\n  ${files.join('\n  ')}`}\n`,
    );
    for (const [file, why] of Object.entries(FAILS_UNDER_FAKETIME))
      process.stdout.write(`left out: ${file}: ${why}\n`);
    return;
  }
  if (spawnSync('faketime', ['-f', '+0', 'true']).status !== 0) {
    process.stderr.write(`${FAKETIME_MISSING}\n`);
    process.exit(2);
  }
  // The e2e tests spawn the built CLI (dist/) when it exists: a stale or missing build would test other code, or
  // compile every spawned CLI through tsx and time out. Build first, as `npm test` does.
  process.stdout.write('building dist/ (npm run build): the e2e tests run the built CLI\n');
  if (spawnSync('npm', ['run', '--silent', 'build'], { stdio: 'inherit' }).status !== 0) {
    process.stderr.write('npm run build failed: fix the build, then run npm run test:dates again\n');
    process.exit(1);
  }
  process.stdout.write(
    `${dates.length} dates, ${f.all ? 'the whole suite' : `${files.length} clock-touching test files (--list names them)`}\n`,
  );
  const rows: string[] = [];
  let failed = 0;
  for (const d of dates) {
    const t0 = Date.now();
    const r = await runOn(d.name, d.at, files);
    const s = summaryOf(r.output);
    const ok = s.ok && r.code === 0;
    if (!ok) {
      failed++;
      process.stdout.write(`\n--- ${d.name} (@${d.at} UTC) failed; its output:\n${r.output}\n`);
    }
    const row = `${ok ? 'ok  ' : 'FAIL'} ${d.name.padEnd(24)} @${d.at} UTC  Test Files ${s.files}; Tests ${s.tests} (${Math.round((Date.now() - t0) / 1000)} s)`;
    rows.push(row);
    process.stdout.write(`${row}\n`);
  }
  process.stdout.write(`\n${rows.join('\n')}\n${dates.length - failed} passed, ${failed} failed\n`);
  process.exit(failed === 0 ? 0 : 1);
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
