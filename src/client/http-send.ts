// One HTTP exchange with the venue: a single deadline over the whole answer and a cap on its size; every
// failure is a typed rejection, never a throw and never an unhandled 'error' event.
import http from 'node:http';
import https from 'node:https';
import { ApiError, NetworkError, TimeoutError, type EndpointDef, type VenueError } from '../api/index.js';
import { ResponseTooLargeError } from './client-errors.js';

export interface RawResponse {
  readonly status: number;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: string;
}

/** Where and how the client sends: the venue's base URL, its keep-alive agent and the limits of one answer. */
export interface HttpTarget {
  readonly base: URL;
  readonly agent: http.Agent;
  /** Deadline of one attempt, from sending to the last byte of the answer. */
  readonly timeoutMs: number;
  /** Largest answer body accepted, in bytes. */
  readonly maxBodyBytes: number;
  /** The deadlines of the requests in flight (one timer for all of them). */
  readonly deadlines: Deadlines;
}

/**
 * The deadlines of one target's requests in flight, on one timer: every request of a target has the same
 * timeoutMs, so they expire in the order they started, and a timer set and cleared per request (a third of the
 * transport's own CPU on a small answer) is not needed. The timer keeps the process up only while a request is in
 * flight.
 */
export class Deadlines {
  /** In the order they started, which is the order they expire in. */
  private readonly live = new Set<Exchange>();
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly timeoutMs: number) {}

  /** Watches `x`; answers its deadline (performance.now() ms). */
  add(x: Exchange): number {
    this.live.add(x);
    if (this.timer === undefined) this.timer = setTimeout(this.expire, this.timeoutMs);
    else if (this.live.size === 1) this.timer.ref();
    return performance.now() + this.timeoutMs;
  }

  delete(x: Exchange): void {
    this.live.delete(x);
    if (this.live.size === 0) this.timer?.unref();
  }

  /** Ends every request past its deadline, then waits for the next one's. */
  private readonly expire = (): void => {
    this.timer = undefined;
    const now = performance.now();
    for (const x of this.live) {
      if (x.deadlineAt > now) {
        this.timer = setTimeout(this.expire, Math.ceil(x.deadlineAt - now));
        return;
      }
      x.expired();
    }
  };
}

export function networkError(def: EndpointDef, e: Error): NetworkError {
  return new NetworkError({
    kind: 'network',
    code: 'NETWORK',
    msg: e.message,
    endpoint: def.name,
    retryable: true,
    cause: e,
  });
}

/**
 * Sends one request and reads its whole answer, or rejects with a typed error (never throws). `headers` are
 * name, value pairs in one flat list, Host included (node:http writes such a list as it is: no header map built
 * per request); Content-Length is added to it when there is a body.
 */
export function sendHttp(
  target: HttpTarget,
  def: EndpointDef,
  pathAndQuery: string,
  headers: string[],
  body: string,
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const exchange = new Exchange(target, def, resolve, reject);
    try {
      exchange.start(pathAndQuery, headers, body);
    } catch (e) {
      // Options are checked at construction, so this is unexpected; still a rejection, never a throw.
      exchange.fail(networkError(def, e instanceof Error ? e : new Error(String(e))));
    }
  });
}

/** One request in flight: its deadline, the answer's bytes so far, and whether it is settled. */
class Exchange {
  private settled = false;
  private gotHeaders = false;
  private received = 0;
  private req: http.ClientRequest | undefined;
  // One deadline over the whole answer, headers and body: a socket idle timeout alone lets a venue
  // that drips one byte a second hold a call forever.
  readonly deadlineAt: number;

  constructor(
    private readonly target: HttpTarget,
    private readonly def: EndpointDef,
    private readonly resolve: (res: RawResponse) => void,
    private readonly reject: (e: Error) => void,
  ) {
    this.deadlineAt = target.deadlines.add(this);
  }

  /** Past its deadline: fails with the timeout. */
  expired(): void {
    this.fail(this.timedOut());
  }

  fail(e: Error): void {
    if (this.settled) return;
    this.settled = true;
    this.target.deadlines.delete(this);
    this.req?.destroy();
    this.reject(e);
  }

  start(pathAndQuery: string, headers: string[], body: string): void {
    const { base, agent } = this.target;
    const mod = base.protocol === 'https:' ? https : http;
    this.req = mod.request(
      {
        protocol: base.protocol,
        hostname: base.hostname,
        port: base.port,
        method: this.def.method,
        path: pathAndQuery,
        headers: body ? (headers.push('Content-Length', String(Buffer.byteLength(body))), headers) : headers,
        agent,
      },
      (res) => this.read(res),
    );
    // Attached before anything else can happen to the request: an 'error' without a listener would
    // crash the host process.
    this.req.on('error', (e) => this.fail(e instanceof ApiError ? e : networkError(this.def, e)));
    // One write with the headers: a separate write for the body costs a second packet.
    if (body) this.req.end(body);
    else this.req.end();
  }

  /** Reads the answer's body, within maxBodyBytes. */
  private read(res: http.IncomingMessage): void {
    this.gotHeaders = true;
    res.on('error', (e) => this.fail(networkError(this.def, e)));
    res.on('aborted', () =>
      this.fail(networkError(this.def, new Error('the venue closed the answer midway'))),
    );
    const declared = Number(res.headers['content-length']);
    if (Number.isFinite(declared) && declared > this.target.maxBodyBytes) {
      this.fail(this.tooLarge(declared));
      return;
    }
    const chunks: Buffer[] = [];
    res.on('data', (c: Buffer) => {
      this.received += c.length;
      if (this.received > this.target.maxBodyBytes) this.fail(this.tooLarge(this.received));
      else chunks.push(c);
    });
    res.on('end', () => {
      if (this.settled) return;
      this.settled = true;
      this.target.deadlines.delete(this);
      this.resolve({
        status: res.statusCode ?? 0,
        headers: res.headers,
        body:
          chunks.length === 1
            ? (chunks[0] as Buffer).toString('utf8')
            : Buffer.concat(chunks).toString('utf8'),
      });
    });
  }

  private timedOut(): TimeoutError {
    const timeoutMs = this.target.timeoutMs;
    return new TimeoutError({
      kind: 'timeout',
      code: '90010',
      msg: this.gotHeaders
        ? `the answer's body was not complete within the ${timeoutMs} ms deadline (timeoutMs; ${this.received} bytes received)`
        : `no answer within the ${timeoutMs} ms deadline (timeoutMs)`,
      endpoint: this.def.name,
      retryable: true,
    });
  }

  private tooLarge(size: number): VenueError {
    return new ResponseTooLargeError({
      kind: 'venue',
      code: 'TOO_LARGE',
      msg: `the answer's body exceeds maxBodyBytes ${this.target.maxBodyBytes} (${size} bytes or more); raise maxBodyBytes if the venue really sends that much`,
      endpoint: this.def.name,
      retryable: false,
    });
  }
}
