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

/** One admin request as its route reads it. */
interface AdminRequest {
  readonly engine: SimEngine;
  readonly gateway: Gateway;
  readonly query: URLSearchParams;
  readonly apiKey: string | undefined;
  readonly rawBody: string;
}

const needApiKey = (r: AdminRequest): string => {
  if (!r.apiKey) throw new SimError('90019', 'apiKey query parameter is required');
  return r.apiKey;
};

/** The admin routes by `METHOD /path`: each answers its data, or throws for a 400 or 404. */
const ROUTES: Readonly<Record<string, (r: AdminRequest) => unknown>> = {
  'GET /sim/time': ({ engine }) => ({
    now: engine.now(),
    iso: new Date(engine.now()).toISOString(),
    speed: engine.clock.speed,
  }),
  'POST /sim/clock/advance': ({ engine, rawBody }) => {
    const { ms } = parse(schemas.advance, rawBody);
    engine.clock.advance(ms);
    return { now: engine.now() };
  },
  'POST /sim/clock/speed': ({ engine, rawBody }) => {
    const { speed } = parse(schemas.speed, rawBody);
    engine.clock.setSpeed(speed);
    return { now: engine.now(), speed };
  },
  'GET /sim/accounts': ({ engine }) => engine.listAccounts(),
  'POST /sim/accounts': ({ engine, rawBody }) => {
    const a = parse(schemas.account, rawBody);
    const uid = engine.addAccount({
      ...a,
      permissions: a.permissions as typeof ALL_PERMISSIONS | undefined,
    });
    return { uid };
  },
  'POST /sim/fund': ({ engine, rawBody }) => {
    const f = parse(schemas.fund, rawBody);
    return engine.fund(f.apiKey, f.coin, f.amount);
  },
  'GET /sim/balances': (r) => r.engine.balances(needApiKey(r)),
  // The oracle of margin tests: loans (borrowed qty, basis, interest owed), assets, liabilities, the risk
  // ratio and forced liquidations, in the simulator's model (src/market/margin.ts).
  'GET /sim/margin': (r) => {
    const m = r.engine.margin(needApiKey(r));
    return {
      loans: m.loans.map((l) => ({
        coin: l.coin,
        symbol: l.symbol,
        borrowed: toWire(l.qty),
        basis: toWire(l.basis),
        interest: toWire(l.interest),
        accruedUntil: l.accruedUntil,
      })),
      assets: toWire(m.assets),
      liabilities: toWire(m.liabilities),
      riskRatio: m.riskRatio.isFinite() ? toWire(m.riskRatio) : 'Infinity',
      leverage: Object.fromEntries(Object.entries(m.leverage).map(([c, v]) => [c, toWire(v)])),
      liquidations: m.liquidations.map((x) => ({
        ts: x.ts,
        symbol: x.symbol,
        side: x.side,
        price: toWire(x.price),
        size: toWire(x.size),
        orderId: x.orderId,
        riskRatio: toWire(x.riskRatio),
      })),
    };
  },
  'GET /sim/orders': ({ engine, apiKey }) => engine.orders(apiKey).map(orderJson),
  'POST /sim/orders/cancel': ({ engine, rawBody }) => {
    const { orderId } = parse(schemas.cancel, rawBody);
    return { cancelled: engine.cancelOrder(orderId) };
  },
  'GET /sim/fills': (r) =>
    r.engine
      .fills(needApiKey(r), r.query.get('symbol') ?? undefined)
      .map(({ notional: _notional, ...f }) => ({
        ...f,
        price: toWire(f.price),
        size: toWire(f.size),
        fee: toWire(f.fee),
      })),
  'GET /sim/withdrawals': ({ engine, apiKey }) => engine.listWithdrawals(apiKey),
  'POST /sim/withdrawals': ({ engine, rawBody }) =>
    engine.createWithdrawal(parse(schemas.withdrawal, rawBody)),
  'GET /sim/faults': ({ engine }) => engine.faults.config,
  'POST /sim/faults': ({ engine, rawBody }) => engine.faults.set(parse(FaultConfigSchema, rawBody)),
  'POST /sim/suspensions': ({ engine, rawBody }) => {
    const s = parse(schemas.suspension, rawBody);
    engine.setSuspended(s.code, s.suspended);
    return { suspended: engine.suspendedCodes() };
  },
  // What the venue saw, for tests and operators: 429s its rate limits answered, by budget.
  // What the venue saw, for tests and operators: 429s its rate limits answered, by budget, and the requests
  // received, by path (injected faults included).
  'GET /sim/stats': ({ gateway }) => ({
    rateLimited: Object.fromEntries(gateway.rateLimited429),
    received: Object.fromEntries(gateway.received),
  }),
  'POST /sim/reset': ({ engine, gateway }) => {
    engine.reset();
    gateway.limiter.reset();
    gateway.rateLimited429.clear();
    gateway.received.clear();
    return { now: engine.now() };
  },
};

/** Handles one admin request; `path` starts with /sim/. */
export function handleAdmin(
  engine: SimEngine,
  gateway: Gateway,
  method: string,
  path: string,
  rawQuery: string,
  rawBody: string,
): AdminResponse {
  const query = new URLSearchParams(rawQuery);
  const route = `${method} ${path}`;
  const answer = Object.hasOwn(ROUTES, route) ? ROUTES[route] : undefined;
  if (answer === undefined) return reply(404, `no admin route ${route}`);
  try {
    return reply(200, answer({ engine, gateway, query, apiKey: query.get('apiKey') ?? undefined, rawBody }));
  } catch (err) {
    if (err instanceof SimError)
      return reply(err.code === '90006' || err.code === '40034' ? 404 : 400, err.message);
    return reply(400, err instanceof Error ? err.message : String(err));
  }
}
