// The version of tradebot itself, from its package.json (src/api from the sources, dist/src/api when built).
import { existsSync, readFileSync } from 'node:fs';

const pkgUrl = ['../../package.json', '../../../package.json']
  .map((p) => new URL(p, import.meta.url))
  .find((u) => existsSync(u));

export const TRADEBOT_VERSION = (
  pkgUrl ? (JSON.parse(readFileSync(pkgUrl, 'utf8')) as { version: string }) : { version: '0.0.0' }
).version;
