// The common response envelope of spec section 1, for successes and failures alike.
import { z } from 'zod';
import { SUCCESS_CODE } from './errors.js';

export const EnvelopeSchema = z.looseObject({
  code: z.string(),
  msg: z.string(),
  requestTime: z.union([z.number(), z.string().regex(/^\d+$/).transform(Number)]),
  data: z.unknown(),
});
export type Envelope<T = unknown> = { code: string; msg: string; requestTime: number; data: T };

export const ok = <T>(data: T, requestTime: number): Envelope<T> => ({
  code: SUCCESS_CODE,
  msg: 'success',
  requestTime,
  data,
});

export const fail = (code: string, msg: string, requestTime: number): Envelope<null> => ({
  code,
  msg,
  requestTime,
  data: null,
});
