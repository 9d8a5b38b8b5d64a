// The port the feeds poll: structurally a subset of RestClient, so the client plugs in as is and
// tests can pass small fakes answering cold observables on a TestScheduler.
import type { ObservableInput } from 'rxjs';
import type { EndpointName, ParamsIn, ResponseOf } from '../api/index.js';

type Call<N extends EndpointName> = (params: ParamsIn<N>) => ObservableInput<ResponseOf<N>>;

/** An answer's data with the venue's time it was made at (the envelope's requestTime). */
export interface Timed<T> {
  readonly data: T;
  readonly requestTime: number;
}

export interface MarketDataSource {
  tickers: Call<'tickers'>;
  candles: Call<'candles'>;
  historyCandles: Call<'historyCandles'>;
  orderbook: Call<'orderbook'>;
  instruments: Call<'instruments'>;
  suspensionResumptionInfo: Call<'suspensionResumptionInfo'>;
  marketStates(): ObservableInput<ResponseOf<'marketStates'>>;
  marketCalendar(): ObservableInput<ResponseOf<'marketCalendar'>>;
  /** candles and history-candles answered with the envelope's requestTime (RestClient.timed). */
  timed(name: 'candles', params: ParamsIn<'candles'>): ObservableInput<Timed<ResponseOf<'candles'>>>;
  timed(
    name: 'historyCandles',
    params: ParamsIn<'historyCandles'>,
  ): ObservableInput<Timed<ResponseOf<'historyCandles'>>>;
}
