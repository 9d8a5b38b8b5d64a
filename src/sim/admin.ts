// The simulator's admin API under /sim/ (JSON in and out, no signature): the clock, accounts and
// funds, withdrawals, orders, fills, balances, faults, suspensions and reset. Same operations as the
// engine object offers in code.
import { z } from 'zod';
import { DECIMAL_RE, SIGNED_DECIMAL_RE } from '../api/index.js';
import { toWire } from '../market/decimal.js';
import type { SimEngine } from './engine.js';
import { ALL_PERMISSIONS } from './accounts.js';
import { SimError } from './sim-error.js';
import { FaultConfigSchema } from './faults.js';
import type { Gateway } from './gateway.js';

export interface AdminResponse {
  readonly status: number;
  readonly body: string;
}

const decimalString = (field: string) =>
  z
    .string({ error: `${field} must be a decimal string` })
    .regex(SIGNED_DECIMAL_RE, `${field} must be a decimal string such as "100.5"`);

const schemas = {
  advance: z.strictObject({
    ms: z
      .number({ error: 'ms must be a number of milliseconds' })
      .int('ms must be whole')
      .min(0, 'ms must be >= 0'),
  }),
  speed: z.strictObject({
    speed: z.number({ error: 'speed must be a number' }).positive('speed must be greater than 0'),
  }),
  account: z.strictObject({
    apiKey: z.string().min(1, 'apiKey is required'),
    apiSecret: z.string().min(1, 'apiSecret is required'),
    passphrase: z.string().min(1, 'passphrase is required'),
    permissions: z.array(z.enum(ALL_PERMISSIONS as [string, ...string[]])).optional(),
    whitelisted: z.boolean().optional(),
    balances: z.record(z.string(), decimalString('balances value')).optional(),
    feeRate: z.string().regex(DECIMAL_RE, 'feeRate must be a decimal string').optional(),
    uid: z.string().optional(),
  }),
  fund: z.strictObject({
    apiKey: z.string().min(1, 'apiKey is required'),
    coin: z.string().min(1, 'coin is required'),
    amount: decimalString('amount'),
  }),
  withdrawal: z.strictObject({
    apiKey: z.string().min(1, 'apiKey is required'),
    coin: z.string().min(1, 'coin is required'),
    amount: z.string().regex(DECIMAL_RE, 'amount must be a positive decimal string'),
    clientOid: z.string().min(1).optional(),
  }),
  suspension: z.strictObject({
    code: z.string().min(1, 'code is required'),
    suspended: z.boolean({ error: 'suspended must be true or false' }),
  }),
  cancel: z.strictObject({ orderId: z.string().min(1, 'orderId is required') }),
};

const reply = (status: number, data: unknown): AdminResponse => ({
  status,
  body: JSON.stringify(status < 300 ? { ok: true, data } : { ok: false, error: data }),
});

function parse<T extends z.ZodType>(schema: T, rawBody: string): z.output<T> {
  let json: unknown;
  try {
    json = rawBody.trim() === '' ? {} : JSON.parse(rawBody);
  } catch {
    throw new SimError('90017', 'the admin request body must be JSON');
  }
  const r = schema.safeParse(json);
  if (!r.success)
    throw new SimError(
      '90017',
      r.error.issues.map((i) => `${i.path.join('.') || '(body)'}: ${i.message}`).join('; '),
    );
  return r.data;
}

const orderJson = (o: ReturnType<SimEngine['orders']>[number]) => ({
  orderId: o.orderId,
  clientOid: o.clientOid,
  uid: o.accountId,
  symbol: o.symbol,
  side: o.side,
  orderType: o.orderType,
  price: o.price === undefined ? '' : toWire(o.price),
  qty: toWire(o.qty),
  status: o.status,
  filledQty: toWire(o.filledQty),
  filledQuote: toWire(o.filledQuote),
  fee: toWire(o.fee),
  createdAt: o.createdAt,
  updatedAt: o.updatedAt,
});

/** Handles one admin request; `path` starts with /sim/. */
export function handleAdmin(
  engine: SimEngine,
  gateway: Gateway,
  method: string,
  path: string,
  rawQuery: string,
  rawBody: string,
): AdminResponse {
  const q = new URLSearchParams(rawQuery);
  const apiKey = q.get('apiKey') ?? undefined;
  const route = `${method} ${path}`;
  try {
    switch (route) {
      case 'GET /sim/time':
        return reply(200, {
          now: engine.now(),
          iso: new Date(engine.now()).toISOString(),
          speed: engine.clock.speed,
        });
      case 'POST /sim/clock/advance': {
        const { ms } = parse(schemas.advance, rawBody);
        engine.clock.advance(ms);
        return reply(200, { now: engine.now() });
      }
      case 'POST /sim/clock/speed': {
        const { speed } = parse(schemas.speed, rawBody);
        engine.clock.setSpeed(speed);
        return reply(200, { now: engine.now(), speed });
      }
      case 'GET /sim/accounts':
        return reply(200, engine.listAccounts());
      case 'POST /sim/accounts': {
        const a = parse(schemas.account, rawBody);
        const uid = engine.addAccount({
          ...a,
          permissions: a.permissions as typeof ALL_PERMISSIONS | undefined,
        });
        return reply(200, { uid });
      }
      case 'POST /sim/fund': {
        const f = parse(schemas.fund, rawBody);
        return reply(200, engine.fund(f.apiKey, f.coin, f.amount));
      }
      case 'GET /sim/balances':
        if (!apiKey) throw new SimError('90019', 'apiKey query parameter is required');
        return reply(200, engine.balances(apiKey));
      case 'GET /sim/orders':
        return reply(200, engine.orders(apiKey).map(orderJson));
      case 'POST /sim/orders/cancel': {
        const { orderId } = parse(schemas.cancel, rawBody);
        return reply(200, { cancelled: engine.cancelOrder(orderId) });
      }
      case 'GET /sim/fills': {
        if (!apiKey) throw new SimError('90019', 'apiKey query parameter is required');
        const fills = engine.fills(apiKey, q.get('symbol') ?? undefined);
        return reply(
          200,
          fills.map(({ notional: _notional, ...f }) => ({
            ...f,
            price: toWire(f.price),
            size: toWire(f.size),
            fee: toWire(f.fee),
          })),
        );
      }
      case 'GET /sim/withdrawals':
        return reply(200, engine.listWithdrawals(apiKey));
      case 'POST /sim/withdrawals':
        return reply(200, engine.createWithdrawal(parse(schemas.withdrawal, rawBody)));
      case 'GET /sim/faults':
        return reply(200, engine.faults.config);
      case 'POST /sim/faults':
        return reply(200, engine.faults.set(parse(FaultConfigSchema, rawBody)));
      case 'POST /sim/suspensions': {
        const s = parse(schemas.suspension, rawBody);
        engine.setSuspended(s.code, s.suspended);
        return reply(200, { suspended: engine.suspendedCodes() });
      }
      case 'GET /sim/stats':
        // What the venue saw, for tests and operators: 429s its rate limits answered, by budget.
        return reply(200, { rateLimited: Object.fromEntries(gateway.rateLimited429) });
      case 'POST /sim/reset':
        engine.reset();
        gateway.limiter.reset();
        gateway.rateLimited429.clear();
        return reply(200, { now: engine.now() });
      default:
        return reply(404, `no admin route ${route}`);
    }
  } catch (err) {
    if (err instanceof SimError)
      return reply(err.code === '90006' || err.code === '40034' ? 404 : 400, err.message);
    return reply(400, err instanceof Error ? err.message : String(err));
  }
}
