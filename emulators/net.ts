import { readFileSync } from 'node:fs';
import net from 'node:net';

/**
 * The ports the kernel hands out as the local end of outgoing connections (Linux's
 * `ip_local_port_range`; 32768-60999 by default). A port picked from there and released can be
 * taken by any outgoing connection before the server that wanted it listens.
 */
function ephemeralRange(): [number, number] {
  try {
    const [low, high] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/);
    if (low !== undefined && high !== undefined) return [Number(low), Number(high)];
  } catch {
    // Not Linux: the IANA dynamic range, which other systems use.
  }
  return [49152, 65535];
}

/** Whether `port` can be listened on at 127.0.0.1 now. */
function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** A port from the system's choice (port 0), as a last resort. */
function anyPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/**
 * A port that was free a moment ago, for servers whose address must be known before they start.
 * Picked at random below the ephemeral range where there is room (10000 up to it), so that an
 * outgoing connection made meanwhile (the tests make many) cannot take it first.
 */
export async function freePort(): Promise<number> {
  const [low] = ephemeralRange();
  const from = 10_000;
  const to = Math.min(low, 65_536);
  if (to - from >= 1_000) {
    for (let attempt = 0; attempt < 50; attempt++) {
      const port = from + Math.floor(Math.random() * (to - from));
      if (await canListen(port)) return port;
    }
  }
  return anyPort();
}
