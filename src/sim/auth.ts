// Request authentication as the venue does it: the four headers, the timestamp window (on the
// simulator clock or on the wall clock, see `authenticate`), the key and passphrase, and the HMAC over the path, raw query and raw body exactly
// as received; then the endpoint's permission and whitelist.
import type { Permission } from '../api/index.js';
import { HEADERS, TIMESTAMP_WINDOW_MS, sign, signatureMatches } from '../api/index.js';

/** An account's credentials and rights as the simulator knows them. */
export interface SimCredentials {
  readonly uid: string;
  readonly apiKey: string;
  readonly apiSecret: string;
  readonly passphrase: string;
  readonly permissions: ReadonlySet<Exclude<Permission, 'none'>>;
  readonly whitelisted: boolean;
}

export type AuthResult = { ok: true; account: SimCredentials } | { ok: false; code: string; msg: string };

type Headers = Readonly<Record<string, string | string[] | undefined>>;

const header = (h: Headers, name: string): string | undefined => {
  const v = h[name];
  const s = Array.isArray(v) ? v[0] : v;
  return s === undefined || s === '' ? undefined : s;
};

/** Whether granted permissions cover a required one (read-write includes read). */
export function hasPermission(
  granted: ReadonlySet<Exclude<Permission, 'none'>>,
  needed: Permission,
): boolean {
  if (needed === 'none') return true;
  if (granted.has(needed)) return true;
  return needed === 'trade-read' && granted.has('trade-read-write');
}

/**
 * Authenticates a request for an endpoint that needs `permission`. ACCESS-TIMESTAMP is accepted within
 * the window of the simulated clock `now` (what a client synced to `requestTime` stamps) or of the wall
 * clock `wallNow` (what a third-party client stamps), so any client works with any start time and speed.
 * The window is real time (latency and clock skew): on the simulated clock it is `speed` times as wide, or
 * a client a few hundred real ms off at 60x (a loaded machine) would be 30 simulated seconds off.
 */
export function authenticate(
  req: { method: string; path: string; rawQuery: string; rawBody: string; headers: Headers },
  now: number,
  byKey: ReadonlyMap<string, SimCredentials>,
  permission: Permission,
  whitelist: boolean,
  wallNow: number = now,
  speed = 1,
): AuthResult {
  const key = header(req.headers, HEADERS.key);
  if (key === undefined)
    return { ok: false, code: '90001', msg: 'ACCESS_KEY cannot be empty: send the ACCESS-KEY header' };
  const signature = header(req.headers, HEADERS.sign);
  if (signature === undefined)
    return { ok: false, code: '90002', msg: 'ACCESS_SIGN cannot be empty: send the ACCESS-SIGN header' };
  const ts = header(req.headers, HEADERS.timestamp);
  if (ts === undefined)
    return {
      ok: false,
      code: '90003',
      msg: 'ACCESS_TIMESTAMP cannot be empty: send ACCESS-TIMESTAMP in Unix milliseconds',
    };
  const pass = header(req.headers, HEADERS.passphrase);
  if (pass === undefined)
    return {
      ok: false,
      code: '90011',
      msg: 'ACCESS_PASSPHRASE cannot be empty: send the ACCESS-PASSPHRASE header',
    };
  if (!/^\d{1,16}$/.test(ts))
    return {
      ok: false,
      code: '90005',
      msg: `Invalid ACCESS_TIMESTAMP ${JSON.stringify(ts)}: it must be Unix milliseconds as digits`,
    };
  const t = Number(ts);
  const simWindow = TIMESTAMP_WINDOW_MS * Math.max(1, speed);
  if (Math.abs(t - now) > simWindow && Math.abs(t - wallNow) > TIMESTAMP_WINDOW_MS) {
    return {
      ok: false,
      code: '90008',
      msg:
        now === wallNow
          ? `Request timestamp expired: ACCESS-TIMESTAMP ${ts} is more than 30 s from server time ${now}`
          : `Request timestamp expired: ACCESS-TIMESTAMP ${ts} is more than 30 s from both the simulated time ${now} (requestTime; 30 real seconds at speed ${speed}) and the wall clock ${wallNow}`,
    };
  }
  const account = byKey.get(key);
  if (!account) return { ok: false, code: '90006', msg: 'Invalid ACCESS_KEY' };
  if (!signatureMatches(pass, account.passphrase))
    return { ok: false, code: '90012', msg: 'apikey/password is incorrect' };
  const expected = sign(account.apiSecret, ts, req.method, req.path, req.rawQuery, req.rawBody);
  if (!signatureMatches(expected, signature))
    return { ok: false, code: '90009', msg: 'sign signature error' };
  if (!hasPermission(account.permissions, permission)) {
    return {
      ok: false,
      code: '40014',
      msg: `Incorrect permissions: this endpoint needs the ${permission} permission`,
    };
  }
  if (whitelist && !account.whitelisted)
    return { ok: false, code: '90068', msg: 'Whitelist access required for this endpoint' };
  return { ok: true, account };
}
