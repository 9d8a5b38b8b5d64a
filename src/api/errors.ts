// The error catalogue (DESIGN principle 8): every code the venue (and so the simulator) answers with,
// the typed error it maps to, and a sentence that tells the user what to do. Codes follow the real
// venue's published ones where they exist; the few the spec leaves open are marked "venue-defined
// here" and kept in the 25xxx/40xxx ranges the venue uses for the same families.

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
  /** HTTP status the venue answers with for this code. */
  readonly httpStatus: number;
  /** The venue's message. */
  readonly msg: string;
  /** What the user should do about it. */
  readonly hint: string;
}

/** Success code of the envelope. */
export const SUCCESS_CODE = '00000';

/** Every error code known to tradebot. */
export const ERROR_CODES = {
  '40001': { kind: 'auth', httpStatus: 400, msg: 'ACCESS_KEY cannot be empty', hint: 'Set the API key.' },
  '40002': { kind: 'auth', httpStatus: 400, msg: 'ACCESS_SIGN cannot be empty', hint: 'Sign the request.' },
  '40003': {
    kind: 'auth',
    httpStatus: 400,
    msg: 'ACCESS_TIMESTAMP cannot be empty',
    hint: 'Send the ACCESS-TIMESTAMP header in Unix milliseconds.',
  },
  '40004': {
    kind: 'auth',
    httpStatus: 400,
    msg: 'Request timestamp expired',
    hint: 'Synchronise the local clock; the timestamp must be within 30 seconds of the server time.',
  },
  '40005': {
    kind: 'auth',
    httpStatus: 400,
    msg: 'Invalid ACCESS_TIMESTAMP',
    hint: 'ACCESS-TIMESTAMP must be Unix milliseconds.',
  },
  '40006': {
    kind: 'auth',
    httpStatus: 401,
    msg: 'Invalid ACCESS_KEY',
    hint: 'Check the API key in your configuration.',
  },
  '40008': {
    kind: 'auth',
    httpStatus: 400,
    msg: 'Request timestamp expired',
    hint: 'Synchronise the local clock; the timestamp must be within 30 seconds of the server time.',
  },
  '40009': {
    kind: 'auth',
    httpStatus: 401,
    msg: 'sign signature error',
    hint: 'Check the API secret; the signature covers timestamp, method, path, query and body exactly as sent.',
  },
  '40011': {
    kind: 'auth',
    httpStatus: 400,
    msg: 'ACCESS_PASSPHRASE cannot be empty',
    hint: 'Set the API passphrase.',
  },
  '40012': {
    kind: 'auth',
    httpStatus: 401,
    msg: 'apikey/password is incorrect',
    hint: 'Check the API passphrase in your configuration.',
  },
  '40037': {
    kind: 'auth',
    httpStatus: 401,
    msg: 'Apikey does not exist',
    hint: 'Check the API key in your configuration.',
  },
  '40014': {
    kind: 'permission',
    httpStatus: 403,
    msg: 'Incorrect permissions',
    hint: 'Give the API key the permission this endpoint needs.',
  },
  '40068': {
    kind: 'permission',
    httpStatus: 403,
    msg: 'Whitelist access required',
    hint: 'Apply for whitelist access through a business representative (venue-defined here).',
  },
  '40017': {
    kind: 'parameter',
    httpStatus: 400,
    msg: 'Parameter verification failed',
    hint: 'Fix the parameter named in the message.',
  },
  '40019': {
    kind: 'parameter',
    httpStatus: 400,
    msg: 'Parameter cannot be empty',
    hint: 'Pass the required parameter named in the message.',
  },
  '40034': {
    kind: 'parameter',
    httpStatus: 400,
    msg: 'Parameter does not exist',
    hint: 'Check the symbol, code or id named in the message.',
  },
  '40404': { kind: 'parameter', httpStatus: 404, msg: 'Request URL NOT FOUND', hint: 'Check the path.' },
  '429': {
    kind: 'rate_limit',
    httpStatus: 429,
    msg: 'Too Many Requests',
    hint: 'Slow down; tradebot retries after the Retry-After delay.',
  },
  '25202': {
    kind: 'insufficient_funds',
    httpStatus: 400,
    msg: 'Insufficient balance',
    hint: 'Fund the account or reduce the order size.',
  },
  '25207': {
    kind: 'parameter',
    httpStatus: 400,
    msg: 'Order quantity is below the minimum',
    hint: 'Raise the quantity to the instrument minimum.',
  },
  '25208': {
    kind: 'parameter',
    httpStatus: 400,
    msg: 'Order amount is below the minimum',
    hint: 'Raise the order amount to minOrderAmount (venue-defined here).',
  },
  '25209': {
    kind: 'parameter',
    httpStatus: 400,
    msg: 'Order quantity exceeds the maximum',
    hint: 'Split the order (venue-defined here).',
  },
  '25210': {
    kind: 'parameter',
    httpStatus: 400,
    msg: 'Quantity precision exceeded',
    hint: 'Round the quantity to quantityPrecision decimals (venue-defined here).',
  },
  '25212': {
    kind: 'duplicate_order',
    httpStatus: 400,
    msg: 'Duplicate clientOid',
    hint: 'The order with this clientOid was already placed.',
  },
  '25244': {
    kind: 'parameter',
    httpStatus: 400,
    msg: 'Price is not a multiple of the tick',
    hint: 'Round the price to pricePrecision decimals and the price multiplier.',
  },
  '25245': {
    kind: 'parameter',
    httpStatus: 400,
    msg: 'Limit price is outside the allowed ratio of the market price',
    hint: 'Move the limit price inside buyLimitPriceRatio / sellLimitPriceRatio (venue-defined here).',
  },
  '25246': {
    kind: 'venue',
    httpStatus: 400,
    msg: 'Market is closed for this symbol',
    hint: 'Trade in an open session; see the market states and calendar endpoints (venue-defined here).',
  },
  '25247': {
    kind: 'venue',
    httpStatus: 400,
    msg: 'Symbol is suspended',
    hint: 'Wait for resumption; see suspension-resumption-info (venue-defined here).',
  },
  '25248': {
    kind: 'venue',
    httpStatus: 400,
    msg: 'Symbol status does not allow this order',
    hint: 'Check the instrument status (venue-defined here).',
  },
  '25249': {
    kind: 'parameter',
    httpStatus: 400,
    msg: 'Only Reality stock pairs are supported',
    hint: 'Use a symbol whose instrument has isReality yes (venue-defined here).',
  },
  '25301': {
    kind: 'parameter',
    httpStatus: 400,
    msg: 'Withdrawal does not exist',
    hint: 'Check the withdrawal orderId or clientOid (venue-defined here).',
  },
  '25302': {
    kind: 'venue',
    httpStatus: 200,
    msg: 'Cooling period has ended; the withdrawal cannot be cancelled',
    hint: 'The withdrawal can no longer be cancelled (venue-defined here).',
  },
  '25303': {
    kind: 'venue',
    httpStatus: 200,
    msg: 'Withdrawal is already cancelled',
    hint: 'Nothing to do (venue-defined here).',
  },
  '40010': {
    kind: 'timeout',
    httpStatus: 504,
    msg: 'Request timed out',
    hint: 'Retry later; tradebot retries idempotent requests on its own.',
  },
  '40015': {
    kind: 'venue',
    httpStatus: 500,
    msg: 'System error',
    hint: 'The venue failed; retry later.',
  },
  '45001': {
    kind: 'venue',
    httpStatus: 503,
    msg: 'Service unavailable',
    hint: 'The venue is unavailable; retry later.',
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
      code: '40017',
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
