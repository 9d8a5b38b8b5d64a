// The catalogue against the venue's published code table, read from the installed bitget-api package:
// a code we share with the venue must mean what it means there, and every other code must be one of
// the simulator's own, outside the venue's ranges, so no venue answer is ever read with our meaning.
import { API_ERROR_CODE } from 'bitget-api';
import { describe, expect, it } from 'vitest';
import {
  apiErrorFor,
  ERROR_CODES,
  type ErrorKind,
  SIMULATOR_CODE_RANGE,
  SUCCESS_CODE,
} from '../../../src/api/errors.js';

// What each venue key means, in our families, read from the key's name (the table has no messages).
// Only the keys our catalogue uses need an entry; a new shared code without one fails below.
const VENUE_MEANING: Record<string, ErrorKind> = {
  INSUFFICIENT_BALANCE_V3: 'insufficient_funds',
  INSUFFICIENT_MARGIN_V3: 'insufficient_funds',
  ORDER_DOES_NOT_EXIST_V3: 'parameter',
  INCORRECT_PERMISSIONS: 'permission',
  PARAMETER_DOES_NOT_EXIST: 'parameter',
  ACCOUNT_KYC_REQUIRED: 'permission',
  DISABLE_SUB_ACCESS: 'permission',
  INSUFFICIENT_BALANCE: 'insufficient_funds',
  QTY_LESS_THAN_MINIMUM_SPOT: 'parameter',
  PASSPHRASE_CANNOT_BE_EMPTY: 'auth',
};

const venueTable: Record<string, string> = API_ERROR_CODE;
const venueNamesOf = (code: string): string[] =>
  Object.entries(venueTable)
    .filter(([, c]) => c === code)
    .map(([name]) => name);

describe('error catalogue against the venue table of bitget-api', () => {
  it('reads a non-trivial table from the installed package', () => {
    expect(Object.keys(venueTable).length).toBeGreaterThan(10);
    expect(venueTable.SUCCESS).toBe(SUCCESS_CODE);
  });

  it('gives every code shared with the venue the meaning the venue gives it', () => {
    const shared = Object.entries(ERROR_CODES).filter(([code]) => venueNamesOf(code).length > 0);
    expect(shared.length).toBeGreaterThanOrEqual(5);
    for (const [code, info] of shared) {
      const names = venueNamesOf(code);
      const cited = 'venueName' in info ? info.venueName : undefined;
      expect(names, `code ${code} must cite its venue key`).toContain(cited);
      for (const name of names) {
        expect(VENUE_MEANING[name], `no meaning written down for venue key ${name} (${code})`).toBeDefined();
        expect(info.kind, `code ${code} (${name})`).toBe(VENUE_MEANING[name]);
      }
    }
  });

  it('keeps every other code outside the venue table, in the simulator range', () => {
    const venueCodes = new Set(Object.values(venueTable));
    for (const [code, info] of Object.entries(ERROR_CODES)) {
      if ('venueName' in info) continue;
      expect(venueCodes.has(code), `simulator code ${code} collides with the venue table`).toBe(false);
      if (code === '429') continue; // the HTTP status as a code, three digits (see errors.ts)
      const n = Number(code);
      expect(n >= SIMULATOR_CODE_RANGE.min && n <= SIMULATOR_CODE_RANGE.max, `code ${code}`).toBe(true);
    }
    for (const c of venueCodes) {
      const n = Number(c);
      expect(
        n >= SIMULATOR_CODE_RANGE.min && n <= SIMULATOR_CODE_RANGE.max,
        `venue code ${c} in our range`,
      ).toBe(false);
    }
  });

  it('types an unknown venue code from its HTTP status and never as a duplicate', () => {
    // 25212 was our duplicate-clientOid code; the venue's table does not say what it means.
    const e = apiErrorFor({
      code: '25212',
      msg: 'whatever the venue says',
      endpoint: 'placeRealityOrder',
      httpStatus: 400,
    });
    expect(e.kind).toBe('parameter');
    expect(e.retryable).toBe(false);
    const s = apiErrorFor({ code: '99999', msg: 'x', endpoint: 'tickers', httpStatus: 503 });
    expect(s.kind).toBe('venue');
    expect(s.retryable).toBe(true);
  });
});
