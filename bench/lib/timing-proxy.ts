// A timestamping TCP proxy on loopback for the benches that time the daemon from outside: bytes pass through
// untouched, and per request it records when its first byte arrived from the client and when the last byte
// of its answer was handed to the client's socket, on the absolute clock of sim-process.ts. It reads only
// what it needs of HTTP/1.1 (request line, the answer's head: content-length or chunked) and assumes no
// pipelining (node's agents send one request at a time per connection).
import { createConnection, createServer, type Socket } from 'node:net';
import { absoluteNow } from './sim-process.js';

/** One request as the proxy saw it. */
export interface TimedExchange {
  readonly method: string;
  readonly path: string;
  /** The symbol the request names (its query's `symbol=`, or `"symbol":"..."` in a body sent with the head). */
  readonly symbol: string | undefined;
  /** Absolute ms: the request's first byte arrived at the proxy. */
  readonly firstByteAt: number;
  /** Absolute ms: the answer's last byte was written to the client; NaN until then. */
  answeredAt: number;
  status: number;
}

export interface TimingProxy {
  readonly baseUrl: string;
  /** Every exchange so far, in order of first byte. */
  readonly exchanges: TimedExchange[];
  stop(): Promise<void>;
}

const HEAD_END = Buffer.from('\r\n\r\n');

/** Tracks one connection's answers: where the current one ends. */
class AnswerReader {
  private head = Buffer.alloc(0);
  private bodyLeft = -1; // -1: reading a head; >= 0: bytes of a content-length body left
  private chunked = false;
  private tail = ''; // the last bytes of a chunked body, to see its terminating chunk
  private status = 0;

  /** Feeds bytes of the answer stream; answers the number of answers this data completed, with their status. */
  feed(data: Buffer): number[] {
    const done: number[] = [];
    let buf = data;
    while (buf.length > 0) {
      if (this.bodyLeft < 0 && !this.chunked) {
        this.head = Buffer.concat([this.head, buf]);
        const end = this.head.indexOf(HEAD_END);
        if (end < 0) return done;
        const head = this.head.subarray(0, end).toString('latin1');
        buf = this.head.subarray(end + 4);
        this.head = Buffer.alloc(0);
        this.status = Number(head.slice(9, 12));
        const len = /\r\ncontent-length:\s*(\d+)/i.exec(head);
        if (len !== null) this.bodyLeft = Number(len[1]);
        else if (/\r\ntransfer-encoding:\s*chunked/i.test(head)) this.chunked = true;
        else this.bodyLeft = 0;
      }
      if (this.chunked) {
        this.tail = (this.tail + buf.toString('latin1')).slice(-5);
        buf = Buffer.alloc(0);
        if (this.tail === '0\r\n\r\n') {
          this.chunked = false;
          this.tail = '';
          done.push(this.status);
        }
      } else if (this.bodyLeft >= 0) {
        const take = Math.min(this.bodyLeft, buf.length);
        this.bodyLeft -= take;
        buf = buf.subarray(take);
        if (this.bodyLeft === 0) {
          this.bodyLeft = -1;
          done.push(this.status);
        }
      }
    }
    return done;
  }
}

/** Starts the proxy in front of `target` (http://host:port). */
export async function startTimingProxy(target: string): Promise<TimingProxy> {
  const { hostname, port } = new URL(target);
  const exchanges: TimedExchange[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = createConnection({ host: hostname, port: Number(port), noDelay: true });
    client.setNoDelay(true);
    sockets.add(client).add(upstream);
    const open: TimedExchange[] = []; // sent upstream, not yet answered, oldest first
    let inRequest = false; // between a request's first byte and its answer
    const answers = new AnswerReader();
    client.on('data', (b: Buffer) => {
      if (!inRequest) {
        const firstByteAt = absoluteNow();
        const line = b.subarray(0, Math.max(0, b.indexOf(13))).toString('latin1');
        const [method = '', path = ''] = line.split(' ');
        const named =
          /[?&]symbol=([A-Z0-9]+)/.exec(path) ?? /"symbol":"([A-Z0-9]+)"/.exec(b.toString('latin1'));
        const x: TimedExchange = {
          method,
          path,
          symbol: named?.[1],
          firstByteAt,
          answeredAt: Number.NaN,
          status: 0,
        };
        exchanges.push(x);
        open.push(x);
        inRequest = true;
      }
      upstream.write(b);
    });
    upstream.on('data', (b: Buffer) => {
      const done = answers.feed(b);
      client.write(b);
      const at = absoluteNow();
      for (const status of done) {
        const x = open.shift();
        if (x === undefined) continue;
        x.answeredAt = at;
        x.status = status;
        inRequest = open.length > 0;
      }
    });
    const close = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('close', close).on('error', close);
    upstream.on('close', close).on('error', close);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const a = server.address();
  const p = typeof a === 'object' && a !== null ? a.port : 0;
  return {
    baseUrl: `http://127.0.0.1:${p}`,
    exchanges,
    stop: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
