// Reality (US stock) company data for the simulator: overview, valuation, earnings forecast,
// dividends and splits, insider trades, major shareholders and suspension info. Deterministic from
// the seed and the code. Dividends and insider trades are one fixed history per seed that starts on
// HISTORY_START and grows with the clock: a record appears when it is announced and never changes
// afterwards (its prices come from the market model's price on its own date, not today's), so cursor
// pages of one listing agree with each other and with one large page.
import type {
  CompanyOverview,
  Dividend,
  EarningsForecast,
  InsiderTrade,
  Shareholder,
  Suspension,
  Valuation,
} from '../api/index.js';
import { Decimal } from '../market/decimal.js';
import { isSyntheticRealityCode } from './instruments.js';
import { Prng, hashInts, hashString } from './rng.js';

interface Company {
  readonly name: string;
  readonly zhName: string;
  readonly shares: number;
  readonly employees: number;
  readonly address: string;
  readonly listing: string;
}

const COMPANIES: Readonly<Record<string, Company>> = {
  AAPL: {
    name: 'Apple Inc.',
    zhName: '苹果公司',
    shares: 15_120_000_000,
    employees: 161_000,
    address: 'One Apple Park Way, Cupertino, CA 95014',
    listing: '1980-12-12',
  },
  TSLA: {
    name: 'Tesla, Inc.',
    zhName: '特斯拉公司',
    shares: 3_190_000_000,
    employees: 140_000,
    address: '1 Tesla Road, Austin, TX 78725',
    listing: '2010-06-29',
  },
  NVDA: {
    name: 'NVIDIA Corporation',
    zhName: '英伟达公司',
    shares: 24_500_000_000,
    employees: 29_600,
    address: '2788 San Tomas Expressway, Santa Clara, CA 95051',
    listing: '1999-01-22',
  },
  MSFT: {
    name: 'Microsoft Corporation',
    zhName: '微软公司',
    shares: 7_430_000_000,
    employees: 228_000,
    address: 'One Microsoft Way, Redmond, WA 98052',
    listing: '1986-03-13',
  },
  AMZN: {
    name: 'Amazon.com, Inc.',
    zhName: '亚马逊公司',
    shares: 10_500_000_000,
    employees: 1_550_000,
    address: '410 Terry Avenue North, Seattle, WA 98109',
    listing: '1997-05-15',
  },
  GOOGL: {
    name: 'Alphabet Inc.',
    zhName: '谷歌母公司Alphabet',
    shares: 12_300_000_000,
    employees: 183_000,
    address: '1600 Amphitheatre Parkway, Mountain View, CA 94043',
    listing: '2004-08-19',
  },
  META: {
    name: 'Meta Platforms, Inc.',
    zhName: 'Meta平台公司',
    shares: 2_530_000_000,
    employees: 72_000,
    address: '1 Meta Way, Menlo Park, CA 94025',
    listing: '2012-05-18',
  },
  NFLX: {
    name: 'Netflix, Inc.',
    zhName: '奈飞公司',
    shares: 430_000_000,
    employees: 14_000,
    address: '121 Albright Way, Los Gatos, CA 95032',
    listing: '2002-05-23',
  },
  AMD: {
    name: 'Advanced Micro Devices, Inc.',
    zhName: '超威半导体公司',
    shares: 1_620_000_000,
    employees: 28_000,
    address: '2485 Augustine Drive, Santa Clara, CA 95054',
    listing: '1972-09-27',
  },
  INTC: {
    name: 'Intel Corporation',
    zhName: '英特尔公司',
    shares: 4_360_000_000,
    employees: 108_900,
    address: '2200 Mission College Boulevard, Santa Clara, CA 95054',
    listing: '1971-10-13',
  },
  COIN: {
    name: 'Coinbase Global, Inc.',
    zhName: 'Coinbase全球公司',
    shares: 250_000_000,
    employees: 3_700,
    address: 'One Madison Avenue, New York, NY 10010',
    listing: '2021-04-14',
  },
};

const PEOPLE = [
  'Jordan Lee',
  'Morgan Patel',
  'Avery Chen',
  'Riley Johnson',
  'Casey Brooks',
  'Taylor Nguyen',
  'Jamie Rivera',
  'Drew Kim',
];
const POSITIONS: readonly [string, string][] = [
  ['Officer', 'Chief Executive Officer'],
  ['Officer', 'Chief Financial Officer'],
  ['Director', 'Director'],
  ['Officer', 'General Counsel'],
  ['Officer', 'Senior Vice President'],
];
const HOLDERS = [
  'Vanguard Group Inc',
  'BlackRock Inc',
  'State Street Corp',
  'FMR LLC',
  'Geode Capital Management',
  'T. Rowe Price Associates',
  'Morgan Stanley',
  'Northern Trust Corp',
  'JPMorgan Chase & Co',
  'Norges Bank',
  'Capital Research Global Investors',
  'Bank of America Corp',
];
const TRADE_TYPES = ['P', 'S', 'A', 'F', 'M', 'G'] as const;

const DAY = 86_400_000;
const isoDate = (ms: number): string => new Date(ms).toISOString().slice(0, 10);
const fx = (n: number, d: number): string =>
  new Decimal(n).toDecimalPlaces(d, Decimal.ROUND_HALF_UP).toFixed(d);

/** The first day of every company's generated history (dividends, insider trades). */
export const HISTORY_START = Date.UTC(2018, 0, 1);

interface Timed<T> {
  /** When the record becomes visible (its announcement), Unix ms; non-decreasing along a history. */
  readonly at: number;
  readonly row: T;
}

/**
 * An append-only history drawn from an endless generator: records are generated once, in order, as
 * the clock reaches them, and kept; the records visible at an instant are a prefix of it.
 */
class GrowingHistory<T> {
  private readonly rows: T[] = [];
  private readonly at: number[] = [];
  constructor(private readonly source: Iterator<Timed<T>>) {}

  visible(now: number): readonly T[] {
    // Generate one record past `now`, so the prefix up to `now` is complete.
    while (this.at.length === 0 || (this.at[this.at.length - 1] as number) <= now) {
      const n = this.source.next();
      if (n.done === true) break;
      this.rows.push(n.value.row);
      this.at.push(n.value.at);
    }
    let lo = 0;
    let hi = this.at.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((this.at[mid] as number) <= now) lo = mid + 1;
      else hi = mid;
    }
    return this.rows.slice(0, lo);
  }
}

/** Whether a code is one of the simulator's Reality companies. */
export const isRealityCode = (code: string): boolean => Object.hasOwn(COMPANIES, code);

function company(code: string): Company {
  const c = COMPANIES[code];
  if (c) return c;
  if (isSyntheticRealityCode(code)) return syntheticCompany(code);
  throw new Error(`unknown Reality code ${code}`);
}

/** A synthetic pair's company (`extraPairs`): made-up but well-formed, fixed per code. */
function syntheticCompany(code: string): Company {
  const h = hashString(code) >>> 0;
  return {
    name: `${code} Synthetic Corp.`,
    zhName: `${code}合成公司`,
    shares: 100_000_000 + (h % 9_000) * 1_000_000,
    employees: 500 + (h % 50_000),
    address: `${1 + (h % 999)} Market Street, San Francisco, CA 94105`,
    listing: '2015-01-02',
  };
}

/** Deterministic company data for the simulator's Reality codes. */
export class RealityData {
  /**
   * @param priceOn the price of a company's pair on a date, fixed per seed (the market model's), so a
   *   record dated then keeps its price whatever today's is.
   */
  constructor(
    private readonly seed: number,
    private readonly priceOn: (code: string, ms: number) => Decimal,
  ) {}

  private rng(code: string, salt: number): Prng {
    return new Prng(hashInts(this.seed, hashString(code), salt));
  }

  overview(code: string, price: Decimal): CompanyOverview {
    const c = company(code);
    const r = this.rng(code, 1);
    const cap = price.mul(c.shares);
    return {
      peRatio: fx(18 + 30 * r.next(), 2),
      pbRatio: fx(3 + 25 * r.next(), 2),
      totalShares: String(c.shares),
      marketCap: cap.toDecimalPlaces(0).toFixed(),
      high52Week: price
        .mul(1.1 + 0.3 * r.next())
        .toDecimalPlaces(2)
        .toFixed(2),
      low52Week: price
        .mul(0.55 + 0.3 * r.next())
        .toDecimalPlaces(2)
        .toFixed(2),
      code,
      name: c.name,
      ListingDate: c.listing,
      employees: String(c.employees),
      companyAddress: c.address,
    };
  }

  valuation(code: string, price: Decimal, now: number): Valuation {
    const c = company(code);
    const r = this.rng(code, 2);
    const pe = 18 + 30 * r.next();
    const pb = 3 + 25 * r.next();
    const ps = 2 + 15 * r.next();
    const pcf = 10 + 30 * r.next();
    const cap = price.mul(c.shares);
    const debt = cap.mul(0.02 + 0.1 * r.next());
    const vary = (x: number) => fx(x * (0.95 + 0.1 * r.next()), 4);
    return {
      date: isoDate(now),
      pb: fx(pb, 4),
      pbEd: vary(pb),
      pbPd: vary(pb),
      pbMrq: vary(pb),
      pe: fx(pe, 4),
      peLyr: vary(pe),
      peTtmEd: vary(pe),
      peTtmPd: vary(pe),
      ps: fx(ps, 4),
      psLyr: vary(ps),
      psTtmEd: vary(ps),
      psTtmPd: vary(ps),
      pcf: fx(pcf, 4),
      pcfNet: vary(pcf * 1.4),
      pcfNetTtmEd: vary(pcf * 1.4),
      pcfNetTtmPd: vary(pcf * 1.4),
      pcfTtmEd: vary(pcf),
      pcfTtmPd: vary(pcf),
      evEbitda: fx(12 + 20 * r.next(), 4),
      equityValue: cap.toDecimalPlaces(0).toFixed(),
      grossEv: cap.plus(debt).toDecimalPlaces(0).toFixed(),
      netEv: cap.plus(debt.mul(0.4)).toDecimalPlaces(0).toFixed(),
      tmvUsd: cap.toDecimalPlaces(0).toFixed(),
      cirTmvUsd: cap.mul(0.97).toDecimalPlaces(0).toFixed(),
      dividendYieldTtm: fx(0.02 * r.next(), 6),
    };
  }

  earningsForecast(code: string, price: Decimal, now: number): EarningsForecast {
    const c = company(code);
    const r = this.rng(code, 3);
    const year = new Date(now).getUTCFullYear();
    const eps = price.toNumber() / (18 + 30 * r.next());
    const net = (eps * c.shares) / 1e6;
    const revenue = net * (3 + 5 * r.next());
    return {
      fiscalYear: String(year),
      publicationDeadline: `${year + 1}-02-28`,
      isActual: false,
      revenue: fx(revenue, 2),
      ebit: fx(net * 1.25, 2),
      netIncomeParent: fx(net, 2),
      eps: fx(eps, 4),
      bps: fx(eps * (2 + 4 * r.next()), 4),
      cfps: fx(eps * (1.1 + 0.6 * r.next()), 4),
      roe: fx(0.1 + 0.5 * r.next(), 4),
      roa: fx(0.05 + 0.2 * r.next(), 4),
      currency: 'USD',
    };
  }

  /** Dividends and splits visible at `now`, oldest first (page them newest first by index). */
  dividends(code: string, now: number): readonly Dividend[] {
    return this.history(`div:${code}`, () => this.dividendHistory(code)).visible(now);
  }

  /** Insider trades visible at `now` (announced by then), oldest first. */
  insiderTrades(code: string, now: number): readonly InsiderTrade[] {
    return this.history(`inner:${code}`, () => this.insiderHistory(code)).visible(now);
  }

  private readonly histories = new Map<string, GrowingHistory<unknown>>();

  private history<T>(key: string, make: () => Iterator<Timed<T>>): GrowingHistory<T> {
    let h = this.histories.get(key) as GrowingHistory<T> | undefined;
    if (h === undefined) {
      h = new GrowingHistory(make());
      this.histories.set(key, h as GrowingHistory<unknown>);
    }
    return h;
  }

  /** Quarterly cash dividends (for the three in four companies that pay) and one split. */
  private *dividendHistory(code: string): Iterator<Timed<Dividend>> {
    const r = this.rng(code, 4);
    const pays = r.next() < 0.75;
    const perShare = 0.1 + r.next() * 0.8;
    const phase = r.int(0, 90);
    const splitAt = 8 + r.int(0, 16);
    const splitRatio = r.pick([2, 3, 4, 10]);
    for (let k = 0; ; k++) {
      // A company that pays nothing has one record, its split: after it the history ends (an endless loop that
      // yields nothing would hang the reader asking for the record after `now`).
      if (!pays && k > splitAt) return;
      const ann = HISTORY_START + (phase + k * 91) * DAY;
      if (pays) {
        yield {
          at: ann,
          row: {
            type: 'cash_dividend',
            announcementDate: isoDate(ann),
            recordDate: isoDate(ann + 11 * DAY),
            exrightDate: isoDate(ann + 10 * DAY),
            dividendDate: isoDate(ann + 17 * DAY),
            dividendPerShare: fx(perShare * (1 + k * 0.01), 4),
            stockDividendPerShare: '',
            splitValidDate: '',
            splitNumerator: '',
            splitDenominator: '',
          },
        };
      }
      if (k === splitAt) {
        // Mid-quarter, so records stay in announcement order.
        const sAnn = ann + 45 * DAY;
        yield {
          at: sAnn,
          row: {
            type: 'stock_split',
            announcementDate: isoDate(sAnn),
            recordDate: isoDate(sAnn + 15 * DAY),
            exrightDate: isoDate(sAnn + 16 * DAY),
            dividendDate: isoDate(sAnn + 16 * DAY),
            dividendPerShare: '',
            stockDividendPerShare: '',
            splitValidDate: isoDate(sAnn + 16 * DAY),
            splitNumerator: String(splitRatio),
            splitDenominator: '1',
          },
        };
      }
    }
  }

  /** An insider trade every 4 to 9 days, announced two days after it; holdings carry over. */
  private *insiderHistory(code: string): Iterator<Timed<InsiderTrade>> {
    const c = company(code);
    const r = this.rng(code, 5);
    let holding = 50_000 + r.int(0, 2_000_000);
    let trade = HISTORY_START + r.int(0, 6) * DAY;
    for (;;) {
      trade += r.int(4, 9) * DAY;
      const [innerType, position] = r.pick(POSITIONS);
      const t = r.pick(TRADE_TYPES);
      const add = t === 'P' || t === 'A' || t === 'M';
      const vol = 500 + r.int(0, 90_000);
      holding = add ? holding + vol : Math.max(vol, holding - vol);
      const indirect = r.next() < 0.2;
      const announced = trade + 2 * DAY;
      yield {
        at: announced,
        row: {
          reporterName: r.pick(PEOPLE),
          issueOrgName: c.name,
          endDate: isoDate(trade),
          announcementDate: isoDate(announced),
          innerType,
          position,
          securityTitle: 'Common Stock',
          tradeDate: isoDate(trade),
          designatedExerciseDate: t === 'M' ? isoDate(trade) : '',
          innerTradeType: t,
          actionType: add ? 'add' : 'decrease',
          tradeVolume: String(vol),
          tradePrice:
            t === 'A' || t === 'G'
              ? '0'
              : this.priceOn(code, trade)
                  .mul(0.97 + 0.06 * r.next())
                  .toDecimalPlaces(2)
                  .toFixed(2),
          holdingType: indirect ? 'indirect' : 'direct',
          indirectHoldingStatement: indirect ? 'By Trust' : '',
          postTradeQuantity: String(holding),
        },
      };
    }
  }

  shareholders(code: string): Shareholder[] {
    const c = company(code);
    const r = this.rng(code, 6);
    let ratio = 0.07 + 0.02 * r.next();
    return HOLDERS.concat(HOLDERS.map((h) => `${h} (Advisors)`)).map((name) => {
      ratio *= 0.78 + 0.1 * r.next();
      return { name, holdingNum: String(Math.round(c.shares * ratio)), holdingRatio: fx(ratio, 6) };
    });
  }

  /** Suspension info; a suspended code has a suspension with no resumption yet. */
  suspension(
    code: string,
    suspended: boolean,
    price: Decimal,
    now: number,
    locale: string | undefined,
  ): Suspension {
    const c = company(code);
    const r = this.rng(code, 7);
    const name = locale?.toLowerCase().startsWith('zh') ? c.zhName : code;
    if (suspended) {
      return {
        code,
        name,
        suspensionDate: isoDate(now - DAY),
        suspensionTime: '09:30:00',
        suspensionReason: 'Pending news announcement',
        suspensionPrice: price.toDecimalPlaces(2).toFixed(2),
        resumptionDate: '',
        resumptionQuoteTime: '',
        resumptionTradingTime: '',
      };
    }
    const past = now - (200 + r.int(0, 600)) * DAY;
    return {
      code,
      name,
      suspensionDate: isoDate(past),
      suspensionTime: '10:15:00',
      suspensionReason: 'Volatility trading pause (LULD)',
      suspensionPrice: price
        .mul(0.8 + 0.2 * r.next())
        .toDecimalPlaces(2)
        .toFixed(2),
      resumptionDate: isoDate(past),
      resumptionQuoteTime: '10:20:00',
      resumptionTradingTime: '10:25:00',
    };
  }
}
