// A call's endpoint and parameters as the wire takes them, all checked before anything is sent: every value a
// string (a Decimal as its text, a whole number for a limit or a time), the catalogue's rules, the extras.
import { randomUUID } from 'node:crypto';
import {
  ENDPOINTS,
  ENDPOINT_NAMES,
  ValidationError,
  validateParams,
  type EndpointDef,
  type EndpointName,
  type ParamsIn,
  type ValidationIssue,
} from '../api/index.js';
import { Decimal } from '../market/decimal.js';
import { validAsSent } from './params-as-sent.js';
import type { RequestPriority } from './venue-limiter.js';

type NumericKey = 'limit' | 'startTime' | 'endTime';
type DecimalKey = 'qty' | 'price' | 'leverage' | 'longLeverage' | 'shortLeverage';
type Widen<T> = {
  [K in keyof T]: K extends NumericKey ? T[K] | number : K extends DecimalKey ? T[K] | Decimal : T[K];
};
/** Parameters a client method takes: wire strings, integers for limits and times, Decimal for money. */
export type ClientParams<N extends EndpointName> = Widen<ParamsIn<N>>;

/** Options of one call of `client.request`. */
export interface RequestOptions {
  /**
   * Parameters the catalogue does not know, sent as given (strings) without validation: for a
   * parameter the venue adds before this library knows it. Unknown parameters in `params` are refused,
   * because a typo is the common case.
   */
  readonly extra?: Readonly<Record<string, string>> | undefined;
  /** Order among requests waiting on the same rate budget (0 first; default by endpoint). */
  readonly priority?: RequestPriority | undefined;
  /**
   * Sends of this request, the first included (default the client's `retry.maxAttempts`). A caller that
   * resends on its own passes 1, so that one owner decides how often a request goes out: the trading
   * pipeline's executor resends an order under its clientOid and journals each attempt.
   */
  readonly maxAttempts?: number | undefined;
}

const NUMERIC_KEYS: ReadonlySet<string> = new Set<NumericKey>(['limit', 'startTime', 'endTime']);
const shown = (v: unknown): unknown => (typeof v === 'bigint' ? `${v}n` : v);

/** A parameter as the wire wants it (a string), or the issue that keeps it from being sent. */
const toWireValue = (key: string, v: unknown): string | undefined | { rule: string } => {
  if (v === undefined) return undefined;
  if (typeof v === 'string') return v;
  if (v instanceof Decimal) return v.toFixed();
  if (typeof v === 'number' && NUMERIC_KEYS.has(key)) {
    return Number.isSafeInteger(v) && v >= 0
      ? String(v)
      : { rule: `${key} must be a whole number >= 0 (or a string of digits)` };
  }
  if (typeof v === 'number' || typeof v === 'bigint') {
    // Money and ids are never JS numbers: 0.1 + 0.2 and 2**53 + 1 would reach the venue changed.
    return {
      rule: `${key} must be a string (decimal text such as "12.5") or a Decimal, not a JS ${typeof v}`,
    };
  }
  return { rule: `${key} must be a string` };
};

/** An object of named values: not null, not an array, not a Decimal. */
export const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Decimal);

/** The catalogue's entry of an endpoint named by a caller, or a ValidationError listing the names. */
export function endpointOf(name: unknown): EndpointDef {
  if (typeof name !== 'string' || !Object.hasOwn(ENDPOINTS, name)) {
    throw new ValidationError(String(name), [
      {
        field: '(endpoint)',
        value: name,
        rule: `not an endpoint of the catalogue; one of ${ENDPOINT_NAMES.join(', ')}`,
      },
    ]);
  }
  return ENDPOINTS[name as EndpointName];
}

/**
 * The parameters of a call as wire strings, checked by the catalogue's rules (`venueNow` is the venue's time,
 * for the rules on time ranges), with the caller's extra parameters; a ValidationError names every problem.
 */
export function wireParams(
  name: EndpointName,
  params: unknown,
  extra: unknown,
  rules: { isRealitySymbol: (symbol: string) => boolean; venueNow: () => number },
): Record<string, string> {
  if (!isPlainObject(params)) {
    throw new ValidationError(name, [
      { field: '(parameters)', value: params, rule: 'parameters must be an object' },
    ]);
  }
  const wire: Record<string, string> = {};
  const issues: ValidationIssue[] = [];
  // for-in over own keys: the same keys as Object.entries, without an array per parameter.
  for (const k in params) {
    if (!Object.hasOwn(params, k)) continue;
    const v = params[k];
    const s = typeof v === 'string' ? v : toWireValue(k, v);
    if (typeof s === 'string') wire[k] = s;
    else if (s !== undefined) issues.push({ field: k, value: shown(v), rule: s.rule });
  }
  if (issues.length > 0) throw new ValidationError(name, issues);
  if (name === 'placeRealityOrder' && wire.clientOid === undefined) {
    // A clientOid makes a retry safe: the venue refuses a second order under the same id.
    wire.clientOid = `tbc${randomUUID().replaceAll('-', '')}`;
  }
  if (!validAsSent(name, wire, rules.isRealitySymbol)) {
    const checked = validateParams(name, wire, {
      isRealitySymbol: rules.isRealitySymbol,
      now: rules.venueNow(),
    });
    if (!checked.ok) throw new ValidationError(name, checked.issues);
  }
  if (extra !== undefined) addExtra(name, wire, extra);
  return wire;
}

/** Parameters the catalogue does not know, added as given: strings, none of them a known parameter. */
function addExtra(name: EndpointName, wire: Record<string, string>, extra: unknown): void {
  if (!isPlainObject(extra)) {
    throw new ValidationError(name, [
      { field: 'extra', value: extra, rule: 'extra must be an object of strings' },
    ]);
  }
  const issues: ValidationIssue[] = [];
  for (const [k, v] of Object.entries(extra)) {
    if (typeof v !== 'string')
      issues.push({ field: `extra.${k}`, value: shown(v), rule: 'extra parameters must be strings' });
    else if (Object.hasOwn(wire, k))
      issues.push({
        field: `extra.${k}`,
        value: v,
        rule: `${k} is a known parameter: pass it in params`,
      });
    else wire[k] = v;
  }
  if (issues.length > 0) throw new ValidationError(name, issues);
}

/** A call's priority and number of sends, checked (`maxAttempts` defaults to the client's retry policy). */
export function callOptions(
  name: EndpointName,
  opts: RequestOptions,
  defaultMaxAttempts: number,
): { priority: RequestPriority | undefined; maxAttempts: number } {
  const priority = opts.priority;
  if (priority !== undefined && ![0, 1, 2, 3].includes(priority)) {
    throw new ValidationError(name, [
      { field: 'priority', value: priority, rule: 'priority must be 0, 1, 2 or 3' },
    ]);
  }
  const maxAttempts = opts.maxAttempts ?? defaultMaxAttempts;
  if (!Number.isSafeInteger(maxAttempts) || maxAttempts < 1) {
    throw new ValidationError(name, [
      { field: 'maxAttempts', value: opts.maxAttempts, rule: 'maxAttempts must be a whole number >= 1' },
    ]);
  }
  return { priority, maxAttempts };
}
