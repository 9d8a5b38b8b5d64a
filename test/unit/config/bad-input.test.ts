// Input that used to be accepted and then failed at run time, or was refused in vague words (issue 28):
// each is refused by the loader that `validate` and `run` share, naming the field and the fix, and a value
// from the environment or a secret file is never echoed.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, loadDeployment, type ConfigProblem } from '../../../src/config/index.js';

const dir = mkdtempSync(join(tmpdir(), 'tradebot-bad-input-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
const write = (text: string, name = `b${++n}.yaml`) => {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
};

/** A deployment on the embedded simulator with one bot whose extra lines are `bot`. */
const sim = (bot: string, top = '') => `${top}venue: { kind: simulator }
bots:
  - name: one
    strategy: ma-crossover
${bot
  .trim()
  .split('\n')
  .map((l) => `    ${l}`)
  .join('\n')}
`;

/** A deployment on a remote venue whose credentials come from ${K}. */
const remote = (baseUrl: string, bot = 'symbols: [AAPLUSDT]') => `venue:
  kind: remote
  baseUrl: ${baseUrl}
  credentials: { apiKey: "\${K}", apiSecret: "\${K}", passphrase: "\${K}" }
bots:
  - name: one
    strategy: ma-crossover
    ${bot}
`;

async function problemsOf(file: string, env: NodeJS.ProcessEnv = {}): Promise<ConfigError> {
  try {
    await loadDeployment(file, env);
  } catch (e) {
    if (e instanceof ConfigError) return e;
    throw e;
  }
  throw new Error(`expected ${file} to be refused`);
}
const at = (e: ConfigError, path: string): ConfigProblem => {
  const p = e.problems.find((x) => x.path === path);
  if (p === undefined) throw new Error(`no problem at ${path}: ${e.message}`);
  return p;
};

describe('a value from the environment or a secret file is never echoed', () => {
  const SECRET = 'hunter2-Zq81-secret-value';

  it('a schema problem names the variable instead of its value (a number field, the base URL)', async () => {
    const f = write(
      remote('${TB_URL}', 'symbols: [AAPLUSDT]\n    maxSignalAgeMs: ${TB_AGE}').replaceAll(
        '${K}',
        '${TB_KEY}',
      ),
    );
    const e = await problemsOf(f, { TB_KEY: SECRET, TB_AGE: SECRET, TB_URL: `${SECRET}.example` });
    expect(at(e, 'bots[0].maxSignalAgeMs').message).toMatch(
      /must be a number — got the value of \$\{TB_AGE\}/,
    );
    expect(at(e, 'venue.baseUrl').message).toMatch(/got the value of \$\{TB_URL\}/);
    expect(e.message).not.toContain(SECRET);
  });

  it('a strategy parameter from the environment, and one from a file, in a longer string too', async () => {
    writeFileSync(join(dir, 'amount.txt'), `${SECRET}\n`);
    const f = write(
      sim(
        'symbols: [AAPLUSDT]\nparams: { fast: "${TB_FAST}", quoteAmount: { file: amount.txt } }\nstrategy: ma-crossover',
      ).replace('    strategy: ma-crossover\n', ''),
    );
    const e = await problemsOf(f, { TB_FAST: SECRET });
    expect(at(e, 'bots[0].params.fast').message).toMatch(/got the value of \$\{TB_FAST\}/);
    expect(at(e, 'bots[0].params.quoteAmount').message).toContain('the content of amount.txt');
    expect(e.message).not.toContain(SECRET);
    const g = write(sim('symbols: [AAPLUSDT]\nmaxSignalAgeMs: "x-${TB_AGE}-y"'));
    const partly = await problemsOf(g, { TB_AGE: SECRET });
    expect(at(partly, 'bots[0].maxSignalAgeMs').message).toMatch(/got the value of "x-\$\{TB_AGE\}-y"/);
    expect(partly.message).not.toContain(SECRET);
  });
});

describe('a malformed ${ is refused at load, never sent as a value', () => {
  it('an unclosed ${TB_KEY in a credential, with the field and the fix', async () => {
    const f = write(remote('https://api.example.com').replace('apiKey: "${K}"', `apiKey: '\${TB_KEY'`));
    const p = at(
      await problemsOf(f, { K: 'from-env-123', TB_KEY: 'from-env-456' }),
      'venue.credentials.apiKey',
    );
    expect(p.message).toMatch(/\$\{TB_KEY is not closed: write \$\{TB_KEY\}/);
    expect(p.line).toBe(4);
  });

  it('a ${ that starts no variable, in a credential and in any other field', async () => {
    const f = write(
      remote('https://api.example.com').replace('apiSecret: "${K}"', 'apiSecret: "${"'),
      'store-path.yaml',
    );
    const e = await problemsOf(f, { K: 'from-env-123' });
    expect(at(e, 'venue.credentials.apiSecret').message).toMatch(
      /a \$\{ that starts no variable: write \$\{NAME\}/,
    );
    const g = write(sim('symbols: [AAPLUSDT]', 'store: { path: "${HOME/j.db" }\n'));
    expect(at(await problemsOf(g), 'store.path').message).toMatch(/\$\{HOME is not closed/);
  });
});

describe('what validate can know, it checks', () => {
  it('an interval the venue does not serve for Reality stock pairs (spec 4.1)', async () => {
    const p = at(await problemsOf(write(sim('symbols: [AAPLUSDT]\ninterval: 3m'))), 'bots[0].interval');
    expect(p.message).toMatch(
      /must be one of 1m, 5m, 15m, 1H, 4H, 1D: .*Reality stock pairs \(spec 4\.1\) — got "3m"/,
    );
  });

  it('a symbol listed twice in one bot', async () => {
    const p = at(await problemsOf(write(sim('symbols: [AAPLUSDT, AAPLUSDT]'))), 'bots[0].symbols[1]');
    expect(p.message).toMatch(/AAPLUSDT is listed twice \(also symbols\[0\]\): remove the duplicate/);
    expect(p).toMatchObject({ line: 5 });
  });

  it('a leverage entry the set-leverage call would refuse, or that sets nothing', async () => {
    const f = write(
      sim(`symbols: [AAPLUSDT]
leverage:
  - { category: MARGIN, coin: USDT, leverage: "-3" }
  - { category: MARGIN, coin: USDT, leverage: -3 }
  - { category: MARGIN, coin: USDT }
  - { category: USDT-FUTURES, leverage: "5" }`),
    );
    const e = await problemsOf(f);
    expect(at(e, 'bots[0].leverage[0].leverage').message).toMatch(
      /plain decimal string .*no sign.* — got "-3"/,
    );
    expect(at(e, 'bots[0].leverage[1].leverage').message).toMatch(/must be a string — got -3/);
    expect(at(e, 'bots[0].leverage[2].leverage').message).toMatch(/sets nothing; add leverage: "5"/);
    expect(at(e, 'bots[0].leverage[3].symbol').message).toMatch(
      /symbol is required to set leverage for futures/,
    );
  });

  it('a base URL that is not http or https, and a notification URL likewise', async () => {
    const p = at(
      await problemsOf(write(remote('ftp://api.example.com')), { K: 'from-env-123' }),
      'venue.baseUrl',
    );
    expect(p.message).toMatch(/baseUrl must use http or https, not ftp/);
    const hook = write(sim('symbols: [AAPLUSDT]', 'notify: { webhook: { url: "file:///etc/passwd" } }\n'));
    expect(at(await problemsOf(hook), 'notify.webhook.url').message).toMatch(/absolute http or https URL/);
  });

  it("a quote coin the bot's symbols are not quoted in", async () => {
    const all = at(
      await problemsOf(write(sim('symbols: [AAPLUSDT, TSLAUSDT]\nquoteCoin: EUR'))),
      'bots[0].quoteCoin',
    );
    expect(all.message).toMatch(/AAPLUSDT, TSLAUSDT are not quoted in EUR: .*set quoteCoin to theirs/);
    const one = at(await problemsOf(write(sim('symbols: [AAPLUSDT, TSLAEUR]'))), 'bots[0].symbols[1]');
    expect(one.message).toMatch(/TSLAEUR is not quoted in USDT, the bot's quoteCoin/);
    const lower = at(
      await problemsOf(write(sim('symbols: [AAPLUSDT]\nquoteCoin: usdt'))),
      'bots[0].quoteCoin',
    );
    expect(lower.message).toMatch(/upper case, e\.g\. USDT/);
  });

  it("the simulator's speed, port and fault latency: the bounds `tradebot sim` has too", async () => {
    const f = write(`venue:
  kind: simulator
  speed: 1000000000
  port: 70000
  faults: { latencyMs: [0, 100000000000000000000] }
bots: [{ name: one, strategy: ma-crossover, symbols: [AAPLUSDT] }]
`);
    const e = await problemsOf(f);
    expect(at(e, 'venue.speed').message).toMatch(/must be a number above 0 and at most 3600/);
    expect(at(e, 'venue.port').message).toMatch(/must be a whole number from 0 \(any free port\) to 65535/);
    expect(at(e, 'venue.faults.latencyMs[1]').message).toMatch(/milliseconds from 0 to 60000/);
  });
});

describe('deep nesting', () => {
  it.each([100, 5000])('%i levels are a sentence naming the file, not a stack overflow', async (depth) => {
    const f = write(
      `venue: { kind: simulator }\nbots: ${'['.repeat(depth)}${']'.repeat(depth)}\n`,
      `deep${depth}.yaml`,
    );
    const e = await problemsOf(f);
    expect(e.problems).toHaveLength(1);
    expect(e.message).toContain(`${f}:2:`);
    expect(e.message).toMatch(new RegExp(`deep${depth}\\.yaml nests values more than 64 levels deep`));
    expect(e.message).not.toMatch(/call stack/i);
  });
});
