// Async iteration over the cursor pages of spec 2.19 (inner-trades, dividends, sharehold-detail).
import type { ResponseOf } from '../api/index.js';
import type { ClientParams, RestClient } from './rest-client.js';

export type PagedEndpoint = 'innerTrades' | 'dividends' | 'shareholdDetail';
export type PageItem<N extends PagedEndpoint> = ResponseOf<N>['list'][number];

/**
 * Yields every item of every page, following the cursor until it is empty, repeats, or a page is empty.
 *
 * @example
 * for await (const d of paginate(client, 'dividends', { code: 'AAPL' })) console.log(d.type, d.exrightDate);
 */
export async function* paginate<N extends PagedEndpoint>(
  client: RestClient,
  name: N,
  params: Omit<ClientParams<N>, 'cursor'>,
): AsyncGenerator<PageItem<N>> {
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (;;) {
    const page = (await client.request(
      name,
      cursor === undefined ? params : { ...params, cursor },
    )) as ResponseOf<N>;
    for (const item of page.list) yield item as PageItem<N>;
    if (page.list.length === 0 || page.cursor === '' || seen.has(page.cursor)) return;
    seen.add(page.cursor);
    cursor = page.cursor;
  }
}
