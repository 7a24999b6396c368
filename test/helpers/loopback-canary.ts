// Loopback servers for outbound-request tests: a canary that records every TCP connection, HTTP request,
// WebSocket upgrade and UDP datagram it receives, a small site that answers with fixed resources, and an https site
// with a throw-away certificate.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import dgram from 'node:dgram';
import type { AddressInfo } from 'node:net';
import path from 'node:path';

export interface Canary {
  /** `http://127.0.0.1:<port>` */
  url: string;
  port: number;
  udpPort: number;
  /** Everything that reached it: `tcp`, `GET /path`, `upgrade /path`, `udp`. */
  hits: string[];
  close(): Promise<void>;
}

/** A canary answers every request with a body a leak would show (`CANARY-LEAKED`). */
export async function startCanary(port = 0): Promise<Canary> {
  const hits: string[] = [];
  const server = http.createServer((req, res) => {
    hits.push(`${req.method} ${req.url}`);
    res.writeHead(200, { 'Content-Type': 'text/plain', 'Access-Control-Allow-Origin': '*' }).end('CANARY-LEAKED');
  });
  server.on('connection', () => hits.push('tcp'));
  server.on('upgrade', (req, socket) => {
    hits.push(`upgrade ${req.url}`);
    socket.destroy();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const udp = dgram.createSocket('udp4');
  udp.on('message', () => hits.push('udp'));
  await new Promise<void>((resolve) => udp.bind(0, '127.0.0.1', () => resolve()));
  const actual = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${actual}`,
    port: actual,
    udpPort: udp.address().port,
    hits,
    async close() {
      await closeServer(server);
      await new Promise<void>((r) => udp.close(() => r()));
    },
  };
}

export interface Site {
  url: string;
  /** Paths requested, in order. */
  requests: string[];
  close(): Promise<void>;
}

/** Serves `routes` (path → [status, headers, body]) on loopback; anything else is 404. */
export async function startSite(routes: Record<string, [number, Record<string, string>, string | Buffer]>): Promise<Site> {
  const requests: string[] = [];
  const server = http.createServer((req, res) => {
    requests.push(req.url ?? '');
    const route = routes[req.url ?? ''];
    if (!route) return void res.writeHead(404).end();
    const [status, headers, body] = route;
    res.writeHead(status, headers).end(body);
  });
  server.on('upgrade', (req, socket) => {
    requests.push(`upgrade ${req.url}`);
    socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () => closeServer(server),
  };
}

export interface HttpsSite {
  /** `https://127.0.0.1:<port>` */
  url: string;
  /** The site's self-signed certificate (PEM): the Quire process trusts it through `NODE_EXTRA_CA_CERTS`. */
  certFile: string;
  close(): Promise<void>;
}

/**
 * An https server on loopback answering with `handler`, its certificate made for 127.0.0.1 by openssl for the day and
 * written with its key into `dir` (the caller's temporary folder, which it removes).
 */
export async function startHttpsSite(dir: string, handler: http.RequestListener): Promise<HttpsSite> {
  const [keyFile, certFile] = [path.join(dir, 'key.pem'), path.join(dir, 'cert.pem')];
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', keyFile, '-out', certFile, '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'], { stdio: 'ignore' });
  const server = https.createServer({ key: readFileSync(keyFile), cert: readFileSync(certFile) }, handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return {
    url: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
    certFile,
    close: () => closeServer(server),
  };
}

/** Ends a loopback server, its open connections first (close alone would wait for keep-alive sockets). */
async function closeServer(server: http.Server | https.Server): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
}
