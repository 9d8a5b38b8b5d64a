// The dashboard formats money in the browser from decimal strings (never a JS number): its rounding must be
// the server's (formatAmount), or the page and the CLI would show one amount two ways.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatAmount } from '../../../src/market/decimal.js';
import { DASHBOARD_SCRIPT } from '../../../src/web/page.js';

/** The page's own fmt function, taken from the script it serves, with the given separators. */
function pageFmt(group: string, point: string): (s: string, dp?: number) => string {
  const src = /function fmt\(s, dp\) \{[\s\S]*?\n {2}\}\n/.exec(DASHBOARD_SCRIPT)?.[0];
  if (src === undefined) throw new Error('fmt is not in the dashboard script');
  return new Function('GROUP', 'POINT', `${src}\nreturn fmt;`)(group, point) as (
    s: string,
    dp?: number,
  ) => string;
}

describe("the dashboard's money formatting", () => {
  it('rounds half to even, as the server does, and groups with the locale separators', () => {
    const fmt = pageFmt(',', '.');
    expect([fmt('0.125', 2), fmt('0.135', 2), fmt('0.1251', 2), fmt('-2.5', 0), fmt('3.5', 0)]).toEqual([
      '0.12',
      '0.14',
      '0.13',
      '-2',
      '4',
    ]);
    expect(fmt('1234567.899', 2)).toBe('1,234,567.90');
    expect(pageFmt('.', ',')('9999.995', 2)).toBe('10.000,00');
    expect(fmt('-0.001', 2)).toBe('0.00');
  });

  it('shows every amount as formatAmount does', () => {
    const fmt = pageFmt('', '.');
    const decimal = fc
      .tuple(fc.boolean(), fc.bigInt({ min: 0n, max: 10n ** 12n }), fc.integer({ min: 0, max: 9 }))
      .map(([neg, digits, places]) => {
        const s = digits.toString().padStart(places + 1, '0');
        const text = places === 0 ? s : `${s.slice(0, -places)}.${s.slice(-places)}`;
        return neg ? `-${text}` : text;
      });
    fc.assert(
      fc.property(decimal, fc.integer({ min: 0, max: 6 }), (s, dp) => {
        expect(fmt(s, dp)).toBe(formatAmount(s, dp));
      }),
      { numRuns: 2000 },
    );
  });
});
