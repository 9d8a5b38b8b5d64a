// Withdrawals: the admin API creates one in its cooling period (its amount leaves the available
// balance at once); cancel-withdrawal (spec 4.4) cancels it and refunds it until the period ends,
// after which it is processing.
import type { ParamsOut } from '../api/index.js';
import { withdrawalKey } from '../api/index.js';
import type { Clock } from '../feeds/clock.js';
import { Decimal, toWire } from '../market/decimal.js';
import type { MatchingCore } from './matching.js';
import { SimError } from './sim-error.js';

export type WithdrawalStatus = 'cooling' | 'processing' | 'cancelled';

/** A withdrawal created through the admin API (fields beyond the spec's, which shows none). */
export interface SimWithdrawal {
  readonly orderId: string;
  readonly clientOid: string;
  readonly uid: string;
  readonly coin: string;
  readonly amount: string;
  readonly createdAt: number;
  readonly coolingEndsAt: number;
  status: WithdrawalStatus;
}

/** The withdrawals of one matching core's accounts. */
export class Withdrawals {
  private readonly all: SimWithdrawal[] = [];
  private seq = 0;

  constructor(
    private readonly core: MatchingCore,
    private readonly clock: Clock,
    private readonly coolingMs: number,
  ) {}

  /** Creates a withdrawal of account `uid` in its cooling period. */
  create(uid: string, w: { coin: string; amount: string; clientOid?: string | undefined }): SimWithdrawal {
    if (w.clientOid !== undefined && this.all.some((x) => x.uid === uid && x.clientOid === w.clientOid)) {
      throw new SimError('95212', `a withdrawal with clientOid ${w.clientOid} already exists`);
    }
    const amount = new Decimal(w.amount);
    if (!amount.gt(0)) throw new SimError('90017', 'amount must be greater than zero');
    try {
      this.core.fund(uid, w.coin, amount.neg());
    } catch {
      throw new SimError('25202', `insufficient ${w.coin} balance for a withdrawal of ${w.amount}`);
    }
    const now = this.clock.now();
    const wd: SimWithdrawal = {
      orderId: String(1_500_000_000_000 + ++this.seq),
      clientOid: w.clientOid ?? '',
      uid,
      coin: w.coin,
      amount: toWire(amount),
      createdAt: now,
      coolingEndsAt: now + this.coolingMs,
      status: 'cooling',
    };
    this.all.push(wd);
    return wd;
  }

  /** Withdrawals (of one account, or all), with their status brought up to now. */
  list(uid: string | undefined): SimWithdrawal[] {
    const now = this.clock.now();
    for (const w of this.all) if (w.status === 'cooling' && now >= w.coolingEndsAt) w.status = 'processing';
    return this.all.filter((w) => uid === undefined || w.uid === uid);
  }

  /** cancel-withdrawal of account `uid` at `now`: refunds a withdrawal still cooling. */
  cancel(p: ParamsOut<'cancelWithdrawal'>, uid: string, now: number): 'success' {
    const key = withdrawalKey(p);
    const w = this.all.find(
      (x) => x.uid === uid && (key.by === 'orderId' ? x.orderId === key.id : x.clientOid === key.id),
    );
    if (!w) throw new SimError('95301', `withdrawal ${key.by} ${key.id} does not exist`);
    if (w.status === 'cancelled') throw new SimError('95303', `withdrawal ${w.orderId} is already cancelled`);
    if (now >= w.coolingEndsAt) {
      w.status = 'processing';
      throw new SimError(
        '95302',
        `the cooling period of withdrawal ${w.orderId} ended at ${new Date(w.coolingEndsAt).toISOString()}; it cannot be cancelled`,
      );
    }
    w.status = 'cancelled';
    this.core.fund(uid, w.coin, new Decimal(w.amount));
    return 'success';
  }
}
