// What every HTML report page shares (report.ts says the rules the pages follow): the page shell, escaping, the
// number formats, the tiles of figures, the embedded chart library, and the exchange's time zone with the
// money and price formats of the instrument.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { Instrument } from '../api/index.js';
import { Decimal, formatAmount, formatPercent } from '../market/decimal.js';
import { quoteDecimals } from '../market/instrument-rules.js';
import { wallClockIn } from '../market/sessions.js';
import { US_EASTERN } from '../market/us-calendar.js';

export function chartLibrary(): string {
  // The package exports only ESM entry points and its package.json; the standalone build sits in dist/.
  const pkg = createRequire(import.meta.url).resolve('lightweight-charts/package.json');
  return readFileSync(join(dirname(pkg), 'dist', 'lightweight-charts.standalone.production.js'), 'utf8');
}

export const esc = (s: string) =>
  s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c] as string);
// JSON inside <script>: keep "</script>" and friends from closing the tag.
export const safeJson = (v: unknown) => JSON.stringify(v).replace(/</g, '\\u003c');
export const pct = (x: number) => formatPercent(x);
export const num = (x: number) => (Number.isFinite(x) ? x.toFixed(2) : x > 0 ? '∞' : '—');

/** A chart needs strictly increasing times: a point in the same chart second as the one before is dropped. */
export const ascending = <T extends { time: number }>(xs: readonly T[]): T[] =>
  xs.filter((x, i) => i === 0 || x.time > (xs[i - 1] as T).time);

/** The exchange's time zone of an instrument: Reality tokens trade on US hours. */
export function exchangeTimeZone(instrument: Instrument | undefined): { zone: string; label: string } {
  return instrument?.isReality === 'yes' ? { zone: US_EASTERN, label: 'ET' } : { zone: 'UTC', label: 'UTC' };
}

/** Formats instants in one time zone, and gives the zone's offset for the charts. */
export class ZoneClock {
  constructor(
    readonly zone: string,
    readonly label: string,
  ) {}
  /** Wall-clock fields of an instant in the zone, as if it were UTC (for the chart and the text). */
  private local(ms: number): number {
    return wallClockIn(ms, this.zone);
  }
  /** "2008-01-02 09:30 ET" */
  text(ms: number): string {
    return `${new Date(this.local(ms)).toISOString().slice(0, 16).replace('T', ' ')} ${this.label}`;
  }
  /** "ET (America/New_York)", or "UTC" once. */
  get named(): string {
    return this.label === this.zone ? this.label : `${this.label} (${this.zone})`;
  }
  /** Chart time (seconds) that the UTC-drawing chart shows as the zone's wall clock. */
  chart(ms: number): number {
    return Math.floor(this.local(ms) / 1000);
  }
}

/** How a page shows the instrument's times and money (display only: the figures stay exact elsewhere). */
export interface InstrumentFormat {
  readonly clock: ZoneClock;
  /** The quote coin, '' when the instrument is unknown. */
  readonly quote: string;
  /** Places of the quote coin. */
  readonly qdp: number;
  money(s: string): string;
  price(s: string): string;
  quantity(s: string): string;
}

export function instrumentFormat(instrument: Instrument | undefined): InstrumentFormat {
  const { zone, label } = exchangeTimeZone(instrument);
  const qdp = quoteDecimals(instrument);
  const pdp = Number(instrument?.pricePrecision ?? 8);
  const qp = instrument?.quantityPrecision;
  return {
    clock: new ZoneClock(zone, label),
    quote: instrument?.quoteCoin ?? '',
    qdp,
    money: (s) => formatAmount(s, qdp),
    // With the instrument known, a column of prices (quantities) shares its decimals, so the points line up.
    price: (s) => {
      const d = new Decimal(s).toDecimalPlaces(pdp);
      return instrument?.pricePrecision === undefined ? d.toFixed() : d.toFixed(pdp);
    },
    quantity: (s) => {
      if (qp === undefined) return s;
      const d = new Decimal(s);
      return d.toFixed(Math.max(Number(qp), d.decimalPlaces()));
    },
  };
}

/** The figures at the top of a page, one tile each. */
export const tileGrid = (tiles: readonly (readonly [string, string])[]) =>
  `<div class="grid">${tiles.map(([k, v]) => `<div class="m">${esc(k)}<b>${esc(v)}</b></div>`).join('')}</div>`;

export const page = (title: string, style: string, body: string) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${esc(title)}</title>
<style>
body{font:14px system-ui,sans-serif;margin:24px;color:#222}h1{font-size:20px}h2{font-size:16px;margin-top:28px}
.grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(170px,1fr));gap:8px}.m{background:#f4f6f8;padding:8px;border-radius:6px}
.m b{display:block;font-size:16px}.chart{height:360px;margin-top:8px}.small{height:200px}
table{border-collapse:collapse;width:100%}td,th{border-bottom:1px solid #ddd;padding:4px 8px;text-align:right}th:first-child,td:first-child{text-align:left}
.pos{color:#2e7d32}.neg{color:#c62828}pre{background:#f4f6f8;padding:10px;border-radius:6px;white-space:pre-wrap}
.nw{white-space:nowrap}td.why,th.why{text-align:left}.heat td{text-align:center;font-size:12px}.scroll{max-height:600px;overflow:auto}
${style}
</style></head><body>
${body}
</body></html>
`;
