/**
 * A pass-through HTTP proxy in front of an emulator, for faults that must last exactly as long as
 * a test wants (a persistent 500, a stall, a 200 whose body is not JSON, a 429 with or without
 * `Retry-After`, a 500 from Discord). A fault applies to requests whose `METHOD /path` matches.
 * Where the emulator names its own origin in an answer (paging links), the proxy puts its own, as
 * a real service names itself: the bot follows paging links only to the origin it was given.
 */
import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ProxyFault {
  match: RegExp;
  /** The answer instead of the upstream one; without it, the upstream answer (after `stallMs`). */
  status?: number;
  /** The body, or a function of the request (to echo what it was sent, as some services do). */
  body?: string | ((request: IncomingMessage) => string);
  headers?: Record<string, string>;
  /** Hold the request this long before answering. */
  stallMs?: number;
  /** How many requests the fault applies to (default 1; `Infinity` until `clear()`). */
  times?: number;
}

export interface FaultProxy {
  /** The proxy's origin (`http://127.0.0.1:PORT`); paths are passed on unchanged. */
  origin: string;
  /** Where requests go; set before the first request (the bot's config needs the origin first). */
  setTarget(origin: string): void;
  fail(fault: ProxyFault): void;
  /** Removes every pending fault. */
  clear(): void;
  /** How many requests a fault applied to. */
  readonly served: number;
  /** How many requests reached the proxy in all. */
  readonly received: number;
  /** Every answer as `STATUS METHOD /path`, in order, the faults' and the upstream's alike. */
  readonly answered: readonly string[];
  /**
   * Every exchange as text (request line, headers, bodies), forwarded or answered by a fault, for
   * finding secrets in it.
   */
  readonly transcript: readonly string[];
  close(): Promise<void>;
}

export interface FaultProxyOptions {
  /** Rewrites every forwarded JSON or text answer's body (e.g. to shorten a token's lifetime). */
  rewrite?: (body: string, requestLine: string) => string;
}

export async function startFaultProxy(options: FaultProxyOptions = {}): Promise<FaultProxy> {
  let upstream = new URL('http://127.0.0.1:9');
  let origin = '';
  const faults: ProxyFault[] = [];
  let served = 0;
  let received = 0;
  const transcript: string[] = [];
  const answered: string[] = [];

  function forward(req: IncomingMessage, res: ServerResponse) {
    const outgoing = request(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, host: upstream.host },
      },
      (answer) => {
        const parts: Buffer[] = [];
        answer.on('data', (chunk: Buffer) => parts.push(chunk));
        answer.on('end', () => {
          let body = Buffer.concat(parts);
          const type = String(answer.headers['content-type'] ?? '');
          const readable = /json|text/.test(type) && !answer.headers['content-encoding'];
          if (readable) {
            // The upstream names itself in what it sends (paging links): it is the proxy's origin
            // that the bot knows, as a real service names its own.
            let text = body.toString('utf8').replaceAll(upstream.origin, origin);
            if (options.rewrite) text = options.rewrite(text, `${req.method} ${req.url}`);
            body = Buffer.from(text);
          }
          if (transcript.length < 20_000)
            transcript.push(`${exchange}\n${readable ? body.toString('utf8', 0, 65_536) : `(${type})`}`);
          const headers = { ...answer.headers, 'content-length': String(body.length) };
          delete headers['transfer-encoding'];
          if (typeof headers.location === 'string')
            headers.location = headers.location.replaceAll(upstream.origin, origin);
          if (answered.length < 100_000) answered.push(`${answer.statusCode} ${req.method} ${req.url}`);
          res.writeHead(answer.statusCode ?? 502, headers);
          res.end(body);
        });
      },
    );
    outgoing.on('error', () => res.destroy());
    let exchange = `${req.method} ${req.url}\n${JSON.stringify(req.headers)}\n`;
    req.on('data', (chunk: Buffer) => (exchange += chunk.toString('utf8')));
    req.pipe(outgoing);
  }

  const server = createServer((req, res) => {
    received++;
    const line = `${req.method} ${req.url}`;
    const index = faults.findIndex((fault) => fault.match.test(line));
    const fault = index >= 0 ? faults[index] : undefined;
    if (fault) {
      served++;
      fault.times = (fault.times ?? 1) - 1;
      if (fault.times <= 0) faults.splice(index, 1);
    }
    const answer = () => {
      if (fault?.status !== undefined) {
        // A refused request carried its secrets all the same (a code, a verifier, a token in the
        // path): it is kept in the transcript like a forwarded one, with the answer it got.
        let exchange = `${line}\n${JSON.stringify(req.headers)}\n`;
        req.on('data', (chunk: Buffer) => (exchange += chunk.toString('utf8')));
        req.on('end', () => {
          const body = typeof fault.body === 'function' ? fault.body(req) : (fault.body ?? '');
          if (transcript.length < 20_000) transcript.push(`${exchange}\n${body}`);
          if (answered.length < 100_000) answered.push(`${fault.status} ${line}`);
          res.writeHead(fault.status!, { 'content-type': 'application/json', ...fault.headers });
          res.end(body);
        });
      } else forward(req, res);
    };
    if (fault?.stallMs) {
      const timer = setTimeout(answer, fault.stallMs);
      res.on('close', () => clearTimeout(timer));
    } else answer();
  });
  server.keepAliveTimeout = 1_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  origin = `http://127.0.0.1:${port}`;
  return {
    origin,
    setTarget: (origin) => void (upstream = new URL(origin)),
    fail: (fault) => void faults.push({ ...fault }),
    clear: () => void faults.splice(0),
    get served() {
      return served;
    },
    get received() {
      return received;
    },
    answered,
    transcript,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
