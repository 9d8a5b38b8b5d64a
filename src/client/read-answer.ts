// Reading the venue's answer: the v3 envelope and the venue's time in it, the Retry-After header, the endpoint's
// response schema; an answer that is not a success becomes the catalogue's typed error.
import type { z } from 'zod';
import {
  EnvelopeSchema,
  SUCCESS_CODE,
  VenueError,
  apiErrorFor,
  drainUnknownWireValues,
  type ApiError,
  type EndpointDef,
} from '../api/index.js';
import { compileAnswerCheck, type AnswerCheck } from './answer-check.js';
import type { ClientLogger } from './client-options.js';
import type { RawResponse } from './http-send.js';
import { parseLossless } from './json.js';
import { parseRetryAfter } from './retry.js';

/** An answer's envelope, read but not yet judged, and the wait its Retry-After asks for (ms). */
export interface AnswerEnvelope {
  readonly code: string;
  readonly msg: string;
  /** The venue's time when it answered, Unix ms. */
  readonly requestTime: number;
  readonly data: unknown;
  readonly retryAfterMs: number | undefined;
}

/** An answer that cannot be read: the HTTP status's error when there is one, else a malformed answer. */
function unreadable(
  def: EndpointDef,
  res: RawResponse,
  retryAfterMs: number | undefined,
  why: string,
): ApiError {
  return res.status !== 200
    ? apiErrorFor({
        code: String(res.status),
        msg: `HTTP ${res.status}`,
        endpoint: def.name,
        httpStatus: res.status,
        retryAfterMs,
      })
    : new VenueError({
        kind: 'venue',
        code: 'MALFORMED',
        msg: why,
        endpoint: def.name,
        httpStatus: res.status,
        retryable: true,
      });
}

/** The envelope of an answer received at `now`, or the error of an answer that cannot be read. */
export function readEnvelope(def: EndpointDef, res: RawResponse, now: number): AnswerEnvelope {
  const retryAfter = res.headers['retry-after'];
  const retryAfterMs =
    retryAfter === undefined
      ? undefined
      : parseRetryAfter(Array.isArray(retryAfter) ? retryAfter[0] : retryAfter, now);
  let json: unknown;
  try {
    // Only the order books carry money as JSON numbers (spec 2.4); everywhere else it is a string, and
    // JSON.parse is as lossless as lossless-json and several times faster.
    json =
      def.name === 'orderbook' || def.name === 'rpiOrderbook'
        ? parseLossless(res.body)
        : JSON.parse(res.body);
  } catch {
    throw unreadable(def, res, retryAfterMs, 'the venue answered malformed JSON');
  }
  // The common case read by hand (the schema's rules on the JSON as parsed); anything else is the schema's to judge.
  const j = json as { code?: unknown; msg?: unknown; requestTime?: unknown; data?: unknown } | null;
  if (
    typeof j === 'object' &&
    j !== null &&
    !Array.isArray(j) &&
    typeof j.code === 'string' &&
    typeof j.msg === 'string' &&
    typeof j.requestTime === 'number'
  ) {
    return { code: j.code, msg: j.msg, requestTime: j.requestTime, data: j.data, retryAfterMs };
  }
  const env = EnvelopeSchema.safeParse(json);
  if (!env.success) {
    throw unreadable(def, res, retryAfterMs, 'the answer is not a v3 envelope');
  }
  const { code, msg, requestTime, data } = env.data;
  return { code, msg, requestTime, data, retryAfterMs };
}

/** Each endpoint's compiled response check, or null when its schema has none (zod reads it alone). */
const answerChecks = new Map<EndpointDef, AnswerCheck | null>();

/** Whether an answer's data is valid as it is, by the endpoint's compiled check; false when it has none. */
function validAsIs(def: EndpointDef, data: unknown): boolean {
  let check = answerChecks.get(def);
  if (check === undefined) {
    check = compileAnswerCheck(def.response as z.ZodType) ?? null;
    answerChecks.set(def, check);
  }
  return check !== null && check(data);
}

/**
 * The data of a successful answer, read by the endpoint's response schema; the venue's refusal or an answer
 * of another shape as an error. Unknown enum values are read as strings (tolerant reading) and said once each.
 */
export function answerData(
  def: EndpointDef,
  res: RawResponse,
  env: AnswerEnvelope,
  logger: ClientLogger | undefined,
): unknown {
  const { code, msg, requestTime, data, retryAfterMs } = env;
  if (res.status !== 200 || code !== SUCCESS_CODE) {
    throw apiErrorFor({ code, msg, endpoint: def.name, httpStatus: res.status, retryAfterMs, requestTime });
  }
  // The compiled check says yes to what zod would accept and give back unchanged; for anything else zod reads
  // the answer, and its verdict and error are the ones that count.
  if (validAsIs(def, data)) {
    noteUnknownValues(def, logger);
    return data;
  }
  const parsed = (def.response as z.ZodType).safeParse(data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new VenueError({
      kind: 'venue',
      code: 'BAD_RESPONSE',
      msg: `unexpected answer at data.${issue?.path.join('.') ?? ''}: ${issue?.message ?? 'invalid'}`,
      endpoint: def.name,
      httpStatus: res.status,
      retryable: false,
    });
  }
  noteUnknownValues(def, logger);
  return parsed.data;
}

/** Says each unknown enum value the answer's check noted (tolerant reading). */
function noteUnknownValues(def: EndpointDef, logger: ClientLogger | undefined): void {
  for (const u of drainUnknownWireValues()) {
    logger?.warn('unknown value in a venue answer', { endpoint: def.name, ...u });
  }
}
