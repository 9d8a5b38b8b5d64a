// The error catalogue (DESIGN principle 8): every code the venue or the simulator answers with, the
// typed error it maps to, and a sentence that tells the user what to do.
//
// Where a code comes from. The spec leaves error codes open (§7.4), so the only published table we
// can check against is the venue's own one as shipped by the `bitget-api` package
// (`API_ERROR_CODE` in bitget-api/dist/mjs/constants/enum.js, v3.2.3). A code the venue shares with
// us names that table's key in `venueName`, and test/unit/api/errors.test.ts reads the installed
// package and checks the meaning. Every other code is the simulator's own: it lies in 90000-99999,
// a range the venue's table does not use, so a venue answer can never be mistaken for one of ours
// (40068, for one, is "sub-account access disabled" at the venue, not "whitelist required").
// Layout of our range: 90xxx requests, auth and service (the last digits echo the venue family the
// situation resembles, to help reading logs), 95xxx orders and withdrawals.
//
// What rests on a code: the client's retry decision uses the HTTP status (429, 5xx, 504) and the
// kind of codes listed here; duplicate detection and the clock re-sync use only codes listed here.
// An unknown code from the venue is typed from its HTTP status alone and is never read as a
// duplicate, so nothing is retried or deduplicated on a guess.

/** What went wrong, as a machine-readable family. */
export type ErrorKind =
  | 'auth'
  | 'permission'
  | 'parameter'
  | 'rate_limit'
  | 'insufficient_funds'
  | 'duplicate_order'
  | 'venue'
  | 'network'
  | 'timeout';

export interface ErrorCodeInfo {
  readonly kind: ErrorKind;
  /** HTTP status the simulator answers with for this code (the venue's own statuses are not published). */
  readonly httpStatus: number;
  /** The message sent with the code. */
  readonly msg: string;
  /** What the user should do about it. */
  readonly hint: string;
  /**
   * The key of the venue's published table (bitget-api `API_ERROR_CODE`) that has this code; absent
   * for the simulator's own codes.
   */
  readonly venueName?: string;
}

/** Success code of the envelope (bitget-api `API_ERROR_CODE.SUCCESS`). */
export const SUCCESS_CODE = '00000';

/** The simulator's own codes lie in this range, which the venue's published table does not use. */
export const SIMULATOR_CODE_RANGE = { min: 90000, max: 99999 } as const;

/** Every error code known to tradebot. */
export const ERROR_CODES = {
  // ---- The venue's codes, from its published table (bitget-api API_ERROR_CODE). ----
  '25202': {
    kind: 'insufficient_funds',
    httpStatus: 400,
    msg: 'Insufficient balance',
    hint: 'Fund the account or reduce the order size.',
    venueName: 'INSUFFICIENT_BALANCE_V3',
  },
  '25203': {
    kind: 'insufficient_funds',
    httpStatus: 400,
    msg: 'Insufficient margin',
    hint: 'A MARGIN order would borrow beyond the leverage set for the coin: raise it with set-leverage (up to maxCrossedLeverage), add funds, or reduce the order.',
    venueName: 'INSUFFICIENT_MARGIN_V3',
  },
  '25204': {
    kind: 'parameter',
    httpStatus: 400,
    msg: 'Order does not exist',
    hint: 'Check the orderId or clientOid.',
    venueName: 'ORDER_DOES_NOT_EXIST_V3',
  },
  '40014': {
    kind: 'permission',
    httpStatus: 403,
    msg: 'Incorrect permissions',
    hint: 'Give the API key the permission this endpoint needs.',
    venueName: 'INCORRECT_PERMISSIONS',
  },
  '40034': {
    kind: 'parameter',
    httpStatus: 400,
    msg: 'Parameter does not exist',
    hint: 'Check the symbol, code or id named in the message.',
    venueName: 'PARAMETER_DOES_NOT_EXIST',
  },
  '40035': {
    kind: 'permission',
    httpStatus: 403,
    msg: 'KYC required',
    hint: 'Complete identity verification on the venue.',
    venueName: 'ACCOUNT_KYC_REQUIRED',
  },
  '40068': {
    kind: 'permission',
    httpStatus: 403,
    msg: 'Sub-account access is disabled',
    hint: 'Use the main account, or enable this access for the sub-account on the venue.',
    venueName: 'DISABLE_SUB_ACCESS',
  },
  '43012': {
    kind: 'insufficient_funds',
    httpStatus: 400,
    msg: 'Insufficient balance',
    hint: 'Fund the account or reduce the order size.',
    venueName: 'INSUFFICIENT_BALANCE',
  },
  '45110': {
    kind: 'parameter',
    httpStatus: 400,
    msg: 'Quantity is below the minimum',
    hint: 'Raise the quantity to the trading-rule minimum.',
    venueName: 'QTY_LESS_THAN_MINIMUM_SPOT',
  },
  '400172': {
    kind: 'auth',
    httpStatus: 400,
    msg: 'Passphrase cannot be empty',
    hint: 'Set the API passphrase.',
    venueName: 'PASSPHRASE_CANNOT_BE_EMPTY',
  },

  // ---- The simulator's (and the client's) own codes: 90000-99999, outside the venue's table. ----
  '90001': {
    kind: 'auth',
    httpStatus: 400,
    msg: 'ACCESS_KEY cannot be empty',
    hint: 'Set the API key.',
  },
  '90002': { kind: 'auth', httpStatus: 400, msg: 'ACCESS_SIGN cannot be empty', hint: 'Sign the request.' },
  '90003': {
    kind: 'auth',
    httpStatus: 400,
    msg: 'ACCESS_TIMESTAMP cannot be empty',
    hint: 'Send the ACCESS-TIMESTAMP header in Unix milliseconds.',
  },
  '90004': {
    kind: 'auth',
    httpStatus: 400,
    msg: 'Request timestamp expired',
    hint: 'Synchronise the local clock; the timestamp must be within 30 seconds of the server time.',
  },
  '90005': {
    kind: 'auth',
    httpStatus: 400,
    msg: 'Invalid ACCESS_TIMESTAMP',
    hint: 'ACCESS-TIMESTAMP must be Unix milliseconds.',
  },
  '90006': {
    kind: 'auth',
    httpStatus: 401,
    msg: 'Invalid ACCESS_KEY',
    hint: 'Check the API key in your configuration.',
  },
  '90008': {
    kind: 'auth',
    httpStatus: 400,
    msg: 'Request timestamp expired',
    hint: 'Synchronise the local clock; the timestamp must be within 30 seconds of the server time.',
  },
  '90009': {
    kind: 'auth',
    httpStatus: 401,
    msg: 'sign signature error',
    hint: 'Check the API secret; the signature covers timestamp, method, path, query and body exactly as sent.',
  },
  '90011': {
    kind: 'auth',
    httpStatus: 400,
    msg: 'ACCESS_PASSPHRASE cannot be empty',
    hint: 'Set the API passphrase.',
  },
  '90012': {
    kind: 'auth',
    httpStatus: 401,
    msg: 'apikey/password is incorrect',
    hint: 'Check the API passphrase in your configuration.',
  },
  '90037': {
    kind: 'auth',
    httpStatus: 401,
    msg: 'Apikey does not exist',
    hint: 'Check the API key in your configuration.',
  },
  '90068': {
    kind: 'permission',
    httpStatus: 403,
    msg: 'Whitelist access required',
    hint: 'reality-fills needs whitelist access: apply for it through a business representative of the venue.',
  },
  '90017': {
    kind: 'parameter',
    httpStatus: 400,
    msg: 'Parameter verification failed',
    hint: 'Fix the parameter named in the message.',
  },
  '90019': {
    kind: 'parameter',
    httpStatus: 400,
    msg: 'Parameter cannot be empty',
    hint: 'Pass the required parameter named in the message.',
  },
  '90404': { kind: 'parameter', httpStatus: 404, msg: 'Request URL NOT FOUND', hint: 'Check the path.' },
  // The HTTP status as the code: three digits, so outside the venue's five- and six-digit families.
  // Rate limiting is recognised by the HTTP status 429 in any case.
  '429': {
    kind: 'rate_limit',
    httpStatus: 429,
    msg: 'Too Many Requests',
    hint: 'Slow down; tradebot retries after the Retry-After delay.',
  },
  '90010': {
    kind: 'timeout',
    httpStatus: 504,
    msg: 'Request timed out',
    hint: 'Retry later; tradebot retries idempotent requests on its own.',
  },
  '90015': {
    kind: 'venue',
    httpStatus: 500,
    msg: 'System error',
    hint: 'The venue failed; retry later.',
  },
  '90016': {
    kind: 'venue',
    httpStatus: 503,
    msg: 'Service unavailable',
    hint: 'The venue is unavailable; retry later.',
  },
  '95207': {
    kind: 'parameter',
    httpStatus: 400,
    msg: 'Order quantity is below the minimum',
    hint: 'Raise the quantity to the instrument minimum.',
  },
  '95208': {
    kind: 'parameter',
    httpStatus: 400,
    msg: 'Order amount is below the minimum',
    hint: 'Raise the order amount to minOrderAmount.',
  },
  '95209': {
    kind: 'parameter',
    httpStatus: 400,
    msg: 'Order quantity exceeds the maximum',
    hint: 'Split the order.',
  },
  '95210': {
    kind: 'parameter',
    httpStatus: 400,
    msg: 'Quantity precision exceeded',
    hint: 'Round the quantity to quantityPrecision decimals.',
  },
  '95212': {
    kind: 'duplicate_order',
    httpStatus: 400,
    msg: 'Duplicate clientOid',
    hint: 'The order with this clientOid was already placed.',
  },
  '95244': {
    kind: 'parameter',
    httpStatus: 400,
    msg: 'Price is not a multiple of the tick',
    hint: 'Round the price to pricePrecision decimals and the price multiplier.',
  },
  '95245': {
    kind: 'parameter',
    httpStatus: 400,
    msg: 'Limit price is outside the allowed ratio of the market price',
    hint: 'Move the limit price inside buyLimitPriceRatio / sellLimitPriceRatio.',
  },
  '95246': {
    kind: 'venue',
    httpStatus: 400,
    msg: 'Market is closed for this symbol',
    hint: 'Trade in an open session; see the market states and calendar endpoints.',
  },
  '95247': {
    kind: 'venue',
    httpStatus: 400,
    msg: 'Symbol is suspended',
    hint: 'Wait for resumption; see suspension-resumption-info.',
  },
  '95248': {
    kind: 'venue',
    httpStatus: 400,
    msg: 'Symbol status does not allow this order',
    hint: 'Check the instrument status.',
  },
  '95249': {
    kind: 'parameter',
    httpStatus: 400,
    msg: 'Only Reality stock pairs are supported',
    hint: 'Use a symbol whose instrument has isReality yes.',
  },
  '95401': {
    kind: 'parameter',
    httpStatus: 400,
    msg: 'The coin is not borrowable on this margin pair',
    hint: 'Hold the coin the order needs, or trade a pair whose isIsolatedBaseBorrowable / isIsolatedQuotedBorrowable is true.',
  },
  '95402': {
    kind: 'parameter',
    httpStatus: 400,
    msg: 'Borrow is below the minimum',
    hint: "Borrow at least the pair's userMinBorrow, or hold enough not to borrow.",
  },
  '95403': {
    kind: 'parameter',
    httpStatus: 400,
    msg: 'The symbol is not a margin pair',
    hint: 'Trade it as SPOT, or pick a pair listed under category MARGIN.',
  },
  '95301': {
    kind: 'parameter',
    httpStatus: 400,
    msg: 'Withdrawal does not exist',
    hint: 'Check the withdrawal orderId or clientOid.',
  },
  '95302': {
    kind: 'venue',
    httpStatus: 200,
    msg: 'Cooling period has ended; the withdrawal cannot be cancelled',
    hint: 'The withdrawal can no longer be cancelled.',
  },
  '95303': {
    kind: 'venue',
    httpStatus: 200,
    msg: 'Withdrawal is already cancelled',
    hint: 'Nothing to do.',
  },
} as const satisfies Record<string, ErrorCodeInfo>;

export type ErrorCode = keyof typeof ERROR_CODES;

export function errorInfo(code: string): ErrorCodeInfo | undefined {
  return (ERROR_CODES as Record<string, ErrorCodeInfo>)[code];
}

/** Kind for a failure whose code we do not know, from its HTTP status. */
export function kindForHttpStatus(status: number): ErrorKind {
  if (status === 401) return 'auth';
  if (status === 403) return 'permission';
  if (status === 429) return 'rate_limit';
  if (status === 408 || status === 504) return 'timeout';
  if (status >= 500) return 'venue';
  return 'parameter';
}

export interface ApiErrorDetails {
  readonly kind: ErrorKind;
  readonly code: string;
  readonly msg: string;
  /** Catalogue name of the endpoint, e.g. `placeRealityOrder`. */
  readonly endpoint: string;
  readonly httpStatus?: number | undefined;
  /** Whether sending the same request again is safe and may succeed. */
  readonly retryable: boolean;
  /** Retry-After in milliseconds when the venue gave one. */
  readonly retryAfterMs?: number | undefined;
  readonly requestTime?: number | undefined;
  readonly cause?: unknown;
}

/** Base of every error the client throws; `kind` tells the family, `code` the venue's code. */
export class ApiError extends Error {
  readonly kind: ErrorKind;
  readonly code: string;
  readonly msg: string;
  readonly endpoint: string;
  readonly httpStatus: number | undefined;
  readonly retryable: boolean;
  readonly retryAfterMs: number | undefined;
  readonly requestTime: number | undefined;

  constructor(d: ApiErrorDetails) {
    const hint = errorInfo(d.code)?.hint;
    super(
      `${d.endpoint}: ${d.msg} (code ${d.code}${d.httpStatus ? `, HTTP ${d.httpStatus}` : ''})${hint ? `. ${hint}` : ''}`,
      {
        cause: d.cause,
      },
    );
    this.name = new.target.name;
    this.kind = d.kind;
    this.code = d.code;
    this.msg = d.msg;
    this.endpoint = d.endpoint;
    this.httpStatus = d.httpStatus;
    this.retryable = d.retryable;
    this.retryAfterMs = d.retryAfterMs;
    this.requestTime = d.requestTime;
  }
}
export class AuthError extends ApiError {}
export class PermissionError extends ApiError {}
export class ParameterError extends ApiError {}
export class RateLimitError extends ApiError {}
export class InsufficientFundsError extends ApiError {}
export class DuplicateOrderError extends ApiError {}
export class VenueError extends ApiError {}
export class NetworkError extends ApiError {}
export class TimeoutError extends ApiError {}

const CLASS_BY_KIND: Record<ErrorKind, new (d: ApiErrorDetails) => ApiError> = {
  auth: AuthError,
  permission: PermissionError,
  parameter: ParameterError,
  rate_limit: RateLimitError,
  insufficient_funds: InsufficientFundsError,
  duplicate_order: DuplicateOrderError,
  venue: VenueError,
  network: NetworkError,
  timeout: TimeoutError,
};

/** Whether a failure of this kind may succeed when sent again (the caller still decides if it is safe). */
export function isTransient(kind: ErrorKind, httpStatus?: number): boolean {
  if (kind === 'rate_limit' || kind === 'network' || kind === 'timeout') return true;
  return kind === 'venue' && httpStatus !== undefined && httpStatus >= 500;
}

/** Builds the typed error for a venue answer. */
export function apiErrorFor(d: Omit<ApiErrorDetails, 'kind' | 'retryable'> & { kind?: ErrorKind }): ApiError {
  const kind = d.kind ?? errorInfo(d.code)?.kind ?? kindForHttpStatus(d.httpStatus ?? 400);
  return new CLASS_BY_KIND[kind]({ ...d, kind, retryable: isTransient(kind, d.httpStatus) });
}

/**
 * A parameter refused before anything was sent. Names the field, the value and the rule so the user
 * can fix the call without reading the spec.
 */
export class ValidationError extends ParameterError {
  readonly issues: readonly ValidationIssue[];
  constructor(endpoint: string, issues: readonly ValidationIssue[]) {
    super({
      kind: 'parameter',
      code: '90017',
      msg: issues.map(formatIssue).join('; '),
      endpoint,
      retryable: false,
    });
    this.issues = issues;
    this.message = `${endpoint}: invalid parameters: ${issues.map(formatIssue).join('; ')}`;
  }
}

export interface ValidationIssue {
  readonly field: string;
  readonly value: unknown;
  readonly rule: string;
}

function formatIssue(i: ValidationIssue): string {
  const shown = i.value === undefined ? 'missing' : JSON.stringify(i.value);
  return `${i.field || '(parameters)'} = ${shown}: ${i.rule}`;
}
