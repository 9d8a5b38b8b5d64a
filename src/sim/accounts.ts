// The simulator's accounts: credentials, permissions and whitelisting by API key, each with its
// balances and fee rates opened in the matching core.
import type { Permission } from '../api/index.js';
import { Decimal } from '../market/decimal.js';
import type { SimCredentials } from './auth.js';
import type { MatchingCore } from './matching.js';
import { SimError } from './sim-error.js';

/** Permissions an account can hold. */
export type AccountPermission = Exclude<Permission, 'none'>;
export const ALL_PERMISSIONS: readonly AccountPermission[] = [
  'trade-read',
  'trade-read-write',
  'management',
  'withdrawal',
];

/** An account of the simulator. */
export interface SimAccountOptions {
  readonly apiKey: string;
  readonly apiSecret: string;
  readonly passphrase: string;
  /** Default: all four. */
  readonly permissions?: readonly AccountPermission[] | undefined;
  /** Whitelist access (reality-fills, the higher order rate). Default false. */
  readonly whitelisted?: boolean | undefined;
  /** Starting balances by coin, decimal strings. Default 100000 USDT. */
  readonly balances?: Readonly<Record<string, string>> | undefined;
  /** Fee rate of Reality and spot fills, maker and taker (default 0.001). */
  readonly feeRate?: string | undefined;
  readonly makerFeeRate?: string | undefined;
  readonly takerFeeRate?: string | undefined;
  /** The account's UID (default derived from its position). */
  readonly uid?: string | undefined;
}

/** The default demo account. */
export const DEMO_ACCOUNT: SimAccountOptions = {
  apiKey: 'sim-key',
  apiSecret: 'sim-secret',
  passphrase: 'sim-passphrase',
};

/** The accounts of one matching core, by API key. */
export class SimAccounts {
  private readonly byKey = new Map<string, SimCredentials>();

  constructor(private readonly core: MatchingCore) {}

  /** Adds an account; answers its UID. */
  add(a: SimAccountOptions): string {
    if (this.byKey.has(a.apiKey)) throw new Error(`an account with apiKey ${a.apiKey} already exists`);
    const uid = a.uid ?? String(1_000_000_000 + this.byKey.size + 1);
    const cred: SimCredentials = {
      uid,
      apiKey: a.apiKey,
      apiSecret: a.apiSecret,
      passphrase: a.passphrase,
      permissions: new Set(a.permissions ?? ALL_PERMISSIONS),
      whitelisted: a.whitelisted ?? false,
    };
    const balances: Record<string, Decimal> = {};
    for (const [coin, amount] of Object.entries(a.balances ?? { USDT: '100000' }))
      balances[coin] = new Decimal(amount);
    const d = (s: string | undefined) => (s === undefined ? undefined : new Decimal(s));
    this.core.createAccount(uid, {
      feeRate: d(a.feeRate),
      makerFeeRate: d(a.makerFeeRate),
      takerFeeRate: d(a.takerFeeRate),
      balances,
    });
    this.byKey.set(a.apiKey, cred);
    return uid;
  }

  /** Credentials by API key. */
  get credentials(): ReadonlyMap<string, SimCredentials> {
    return this.byKey;
  }

  /** The UID of an API key, or the venue's 90006 when no account has it. */
  uidOf(apiKey: string): string {
    const a = this.byKey.get(apiKey);
    if (!a) throw new SimError('90006', `no account with apiKey ${apiKey}`);
    return a.uid;
  }

  /** Public view of the accounts (no secrets). */
  list(): { uid: string; apiKey: string; permissions: AccountPermission[]; whitelisted: boolean }[] {
    return [...this.byKey.values()].map((a) => ({
      uid: a.uid,
      apiKey: a.apiKey,
      permissions: [...a.permissions],
      whitelisted: a.whitelisted,
    }));
  }
}
