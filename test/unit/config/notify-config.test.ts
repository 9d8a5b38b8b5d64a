// The notify: block of a deployment: a Telegram token written in the file is refused (never echoed), one
// from the environment is taken and registered as a secret; a block without a target is refused.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { ConfigError, loadConfig } from '../../../src/config/index.js';

const dir = mkdtempSync(join(tmpdir(), 'tradebot-notify-cfg-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = (notify: unknown) => {
  const f = join(dir, `${Math.random().toString(36).slice(2)}.yaml`);
  writeFileSync(
    f,
    stringify({
      venue: { kind: 'simulator' },
      notify,
      bots: [{ name: 'a', strategy: 'ma-crossover', symbols: ['AAPLUSDT'] }],
    }),
  );
  return f;
};
const problems = (f: string, env: NodeJS.ProcessEnv = {}) => {
  try {
    loadConfig(f, env);
    return '';
  } catch (e) {
    if (e instanceof ConfigError) return e.message;
    throw e;
  }
};

describe('notify: in a deployment', () => {
  it('refuses a literal Telegram token without echoing it, and says where it goes', () => {
    const msg = problems(file({ telegram: { botToken: '123:literal-secret-token', chatId: 1 } }));
    expect(msg).toContain(
      'notify.telegram.botToken: a secret written in the file is refused: use ${TRADEBOT_TELEGRAM_TOKEN}',
    );
    expect(msg).not.toContain('literal-secret-token');
  });

  it('takes the token from the environment and lists it among the secrets to redact', () => {
    const loaded = loadConfig(file({ telegram: { botToken: '${TG}', chatId: '@ops' } }), {
      TG: '123:from-env-token',
    });
    expect(loaded.config.notify?.telegram).toMatchObject({
      chatId: '@ops',
      apiBaseUrl: 'https://api.telegram.org',
    });
    expect(loaded.secrets).toContain('123:from-env-token');
  });

  it('refuses a notify block without a target', () => {
    expect(problems(file({ events: ['fill'] }))).toContain(
      'notify needs a target: webhook, telegram or both',
    );
  });
});
