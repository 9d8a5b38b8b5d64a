// The fill journal: one row per venue execution, unique by execId, so polling the same fills twice never
// doubles a position. Insertion order (seq) is the order the portfolio applied them in.
import type { Database, Statement } from 'better-sqlite3';
import type { Decimal } from '../market/decimal.js';
import type { PortfolioFill } from '../portfolio/portfolio.js';
import type { Side } from '../strategy/intent.js';
import { StoreError, decimalColumn, readDecimal, textColumn, tsColumn } from './columns.js';

/** A fill to journal: what the portfolio applies, plus the venue's ids. Fees follow the tradebot convention (quote coin, see portfolio/fees.ts). */
export interface FillInput extends PortfolioFill {
  readonly execId: string;
  readonly bot?: string | undefined;
  readonly orderId?: string | undefined;
  readonly clientOid?: string | undefined;
  /** The liquidity the fee was charged at (absent: not known, e.g. the deployment's book). */
  readonly liquidity?: 'maker' | 'taker' | undefined;
  /** The venue did not say the liquidity: it was inferred from the order, so the fee is an estimate. */
  readonly liquidityInferred?: boolean | undefined;
  /** A margin liquidation's fill: the venue closed the bot's position (no order of the bot's). */
  readonly liquidation?: boolean | undefined;
}

/** A journaled fill; it is directly a `PortfolioFill`, so `Portfolio.fromFills(store.fills.list())` works. */
export interface StoredFill {
  /** Insertion sequence. */
  readonly seq: number;
  readonly execId: string;
  readonly bot?: string;
  readonly symbol: string;
  readonly baseCoin: string;
  readonly quoteCoin: string;
  readonly side: Side;
  readonly price: Decimal;
  readonly size: Decimal;
  readonly fee: Decimal;
  readonly feeCoin: string;
  readonly ts: number;
  readonly orderId?: string;
  readonly clientOid?: string;
  /** The liquidity the fee was charged at; absent when not known (a row journaled before schema 7). */
  readonly liquidity?: 'maker' | 'taker';
  /**
   * Whether the fee is an estimate: the venue's fills do not say the liquidity, so it was inferred from the
   * order (maker for a limit order resting before it filled, taker otherwise) and the fee computed from the
   * configured rates. Absent when not known (a row journaled before schema 7).
   */
  readonly feeEstimated?: boolean;
  /** Present (true) on a margin liquidation's fill: the venue closed the bot's position, no order of its own. */
  readonly liquidation?: true;
}

/** Filter of `list`; results in insertion order. */
export interface FillFilter {
  readonly symbol?: string | undefined;
  readonly bot?: string | undefined;
  readonly sinceTs?: number | undefined;
  readonly clientOid?: string | undefined;
}

interface FillRow {
  seq: number;
  exec_id: string;
  bot: string | null;
  symbol: string;
  base_coin: string;
  quote_coin: string;
  side: Side;
  price: string;
  size: string;
  fee: string;
  fee_coin: string;
  ts: number;
  order_id: string | null;
  client_oid: string | null;
  liquidity: 'maker' | 'taker' | null;
  liquidity_inferred: number | null;
  liquidation: number | null;
}

function toFill(r: FillRow): StoredFill {
  return {
    seq: r.seq,
    execId: r.exec_id,
    ...(r.bot === null ? {} : { bot: r.bot }),
    symbol: r.symbol,
    baseCoin: r.base_coin,
    quoteCoin: r.quote_coin,
    side: r.side,
    price: readDecimal(r.price),
    size: readDecimal(r.size),
    fee: readDecimal(r.fee),
    feeCoin: r.fee_coin,
    ts: r.ts,
    ...(r.order_id === null ? {} : { orderId: r.order_id }),
    ...(r.client_oid === null ? {} : { clientOid: r.client_oid }),
    ...(r.liquidity === null ? {} : { liquidity: r.liquidity }),
    ...(r.liquidity_inferred === null ? {} : { feeEstimated: r.liquidity_inferred === 1 }),
    ...(r.liquidation === 1 ? { liquidation: true as const } : {}),
  };
}

/** Fills, idempotent by execId. */
export class FillRepository {
  private readonly insertStmt: Statement<[Record<string, string | number | null>], unknown>;
  private readonly byExecStmt: Statement<[string], FillRow>;
  private readonly hasStmt: Statement<[string], 1>;
  private readonly lastTsStmt: Statement<[string], { ts: number | null }>;
  private readonly listStmt: Statement<
    [{ symbol: string | null; bot: string | null; since: number; clientOid: string | null }],
    FillRow
  >;
  private readonly deploymentStmt: Statement<[], FillRow>;
  private readonly lastSeqStmt: Statement<[], { s: number | null }>;
  private readonly sizesStmt: Statement<[string, number], { exec_id: string; side: string; size: string }>;
  private readonly attachStmt: Statement<
    [{ execId: string; orderId: string | null; clientOid: string | null }],
    unknown
  >;

  constructor(db: Database) {
    this.insertStmt = db.prepare(
      `INSERT INTO fills (exec_id, bot, symbol, base_coin, quote_coin, side, price, size, fee, fee_coin, ts,
         order_id, client_oid, liquidity, liquidity_inferred, liquidation)
       VALUES (@execId, @bot, @symbol, @baseCoin, @quoteCoin, @side, @price, @size, @fee, @feeCoin, @ts,
         @orderId, @clientOid, @liquidity, @liquidityInferred, @liquidation)
       ON CONFLICT (exec_id) DO NOTHING`,
    );
    this.byExecStmt = db.prepare(`SELECT * FROM fills WHERE exec_id = ?`);
    this.hasStmt = db.prepare<[string], 1>(`SELECT 1 FROM fills WHERE exec_id = ?`).pluck();
    this.lastTsStmt = db.prepare(`SELECT MAX(ts) AS ts FROM fills WHERE symbol = ?`);
    this.listStmt = db.prepare(
      `SELECT * FROM fills WHERE (@symbol IS NULL OR symbol = @symbol) AND (@bot IS NULL OR bot = @bot)
         AND ts >= @since AND (@clientOid IS NULL OR client_oid = @clientOid) ORDER BY seq`,
    );
    this.deploymentStmt = db.prepare(`SELECT * FROM fills WHERE bot IS NULL ORDER BY seq`);
    this.lastSeqStmt = db.prepare(`SELECT MAX(seq) AS s FROM fills`);
    this.sizesStmt = db.prepare(`SELECT exec_id, side, size FROM fills WHERE symbol = ? AND ts >= ?`);
    this.attachStmt = db.prepare(
      `UPDATE fills SET order_id = COALESCE(order_id, @orderId), client_oid = COALESCE(client_oid, @clientOid)
       WHERE exec_id = @execId`,
    );
  }

  /**
   * The deployment's book: fills journaled to no bot (a venue fill, or part of one, that no open order of a
   * bot could take: the fill router books it here rather than nowhere), in insertion order.
   */
  deploymentBook(): StoredFill[] {
    return this.deploymentStmt.all().map(toFill);
  }

  /**
   * What the journal holds of a symbol's fills at or after `sinceTs`, every bot's and the deployment's: execId,
   * side and size only, through the (symbol, ts) index (the fill router's conservation check, at every read).
   */
  sizesSince(symbol: string, sinceTs: number): { execId: string; side: Side; size: Decimal }[] {
    return this.sizesStmt
      .all(symbol, sinceTs)
      .map((r) => ({ execId: r.exec_id, side: r.side as Side, size: readDecimal(r.size) }));
  }

  /** The last fill's sequence number (0 for none): a reader's cheap "did any fill come" (the rowid's maximum). */
  lastSeq(): number {
    return this.lastSeqStmt.get()?.s ?? 0;
  }

  /**
   * Journals a fill (committed when this returns). Returns true when it was new, false when its execId
   * was already journaled (the stored row is kept as it was), so the caller applies it to the portfolio
   * only once.
   */
  insertFill(fill: FillInput): boolean {
    return this.insert(fill) !== undefined;
  }

  /**
   * Journals a fill as `insertFill` does, and answers its sequence number (the row's key, from the
   * insert itself), or undefined when its execId was journaled already.
   */
  insert(fill: FillInput): number | undefined {
    if (fill.side !== 'buy' && fill.side !== 'sell') {
      throw new StoreError(`fill.side must be "buy" or "sell", got ${JSON.stringify(fill.side)}`);
    }
    const info = this.insertStmt.run({
      execId: textColumn(fill.execId, 'fill.execId'),
      bot: fill.bot ?? null,
      symbol: textColumn(fill.symbol, 'fill.symbol'),
      baseCoin: textColumn(fill.baseCoin, 'fill.baseCoin'),
      quoteCoin: textColumn(fill.quoteCoin, 'fill.quoteCoin'),
      side: fill.side,
      price: decimalColumn(fill.price, 'fill.price'),
      size: decimalColumn(fill.size, 'fill.size'),
      fee: decimalColumn(fill.fee, 'fill.fee'),
      feeCoin: textColumn(fill.feeCoin, 'fill.feeCoin'),
      ts: tsColumn(fill.ts, 'fill.ts'),
      orderId: fill.orderId ?? null,
      clientOid: fill.clientOid ?? null,
      liquidity: fill.liquidity ?? null,
      liquidityInferred: fill.liquidityInferred === undefined ? null : fill.liquidityInferred ? 1 : 0,
      liquidation: fill.liquidation === true ? 1 : null,
    });
    return info.changes === 1 ? Number(info.lastInsertRowid) : undefined;
  }

  /** Links a journaled fill to its order once matched (never overwrites a link already stored). */
  attachOrder(execId: string, link: { orderId?: string | undefined; clientOid?: string | undefined }): void {
    const info = this.attachStmt.run({
      execId,
      orderId: link.orderId ?? null,
      clientOid: link.clientOid ?? null,
    });
    if (info.changes === 0) throw new StoreError(`no fill journaled under execId ${execId}`);
  }

  /** Whether a fill is journaled under this execId (a fill sync asks it of each of the venue's recent fills). */
  has(execId: string): boolean {
    return this.hasStmt.get(execId) !== undefined;
  }

  /** The fill journaled under this execId, if any. */
  byExecId(execId: string): StoredFill | undefined {
    const r = this.byExecStmt.get(execId);
    return r === undefined ? undefined : toFill(r);
  }

  /** Timestamp of the newest journaled fill of a symbol (where a fill poll resumes), if any. */
  lastFillTs(symbol: string): number | undefined {
    return this.lastTsStmt.get(symbol)?.ts ?? undefined;
  }

  /** Journaled fills in insertion order (the order to replay them into a portfolio). */
  list(filter: FillFilter = {}): StoredFill[] {
    return this.listStmt
      .all({
        symbol: filter.symbol ?? null,
        bot: filter.bot ?? null,
        since: filter.sinceTs ?? 0,
        clientOid: filter.clientOid ?? null,
      })
      .map(toFill);
  }
}
