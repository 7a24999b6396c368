// A loopback webhook receiver for tests: records every call (method, URL, headers, the raw and the parsed JSON body)
// and answers with a fixed status, or one chosen per call; and `until`, a bounded wait for what it received.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedCall {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: any;
  /** The body exactly as received (signatures cover these bytes). */
  raw: string;
}

export interface WebhookReceiver {
  /** `http://127.0.0.1:<port>/hook` */
  url: string;
  port: number;
  calls: ReceivedCall[];
  close(): Promise<void>;
}

/**
 * Listens on a free loopback port; every request is answered `status` once its body has arrived (a function gets the
 * call's number, from 0).
 */
export function receiver(status: number | ((call: number) => number) = 200): Promise<WebhookReceiver> {
  const calls: ReceivedCall[] = [];
  const server = http.createServer((req, res) => {
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (d) => (text += d));
    req.on('end', () => {
      res.statusCode = typeof status === 'number' ? status : status(calls.length);
      calls.push({ method: req.method!, url: req.url!, headers: req.headers, body: text ? JSON.parse(text) : null, raw: text });
      res.end('ok');
    });
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as AddressInfo).port;
      resolve({ url: `http://127.0.0.1:${port}/hook`, port, calls, close: () => new Promise((r) => server.close(() => r())) });
    });
  });
}

/** Waits until `check()` holds, throwing after `ms`. */
export async function until(check: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}
