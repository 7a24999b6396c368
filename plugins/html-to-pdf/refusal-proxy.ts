// The browser's only network exit: an HTTP proxy on loopback that refuses everything it is asked for.
//
// Request interception answers every request the page's frames make (through the URL policy, fetched here in
// Node). Some traffic never reaches interception: WebSockets, <link rel=prefetch>/preconnect, pop-ups, service
// workers and Chromium's own background requests. Chromium is started with this proxy for every destination,
// loopback included (`--proxy-bypass-list=<-loopback>`), so that traffic ends here and goes nowhere.
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export class RefusalProxy {
  readonly #server: http.Server;
  #refused = 0;

  private constructor(server: http.Server) {
    this.#server = server;
  }

  /** Listens on 127.0.0.1 on a free port. */
  static async start(): Promise<RefusalProxy> {
    const server = http.createServer((_req, res) => {
      proxy.#refused++;
      res.writeHead(403, { 'Content-Type': 'text/plain', Connection: 'close' }).end('Refused by Quire: this request did not pass the outbound URL policy.\n');
    });
    const proxy = new RefusalProxy(server);
    // CONNECT (https and wss through a proxy) and Upgrade (ws) never get a tunnel.
    const refuseTunnel = (_req: http.IncomingMessage, socket: Socket): void => {
      proxy.#refused++;
      // The server hands a tunnel's socket over without its error listener; a browser killed mid-request resets it
      // (ECONNRESET), and an unheard socket error would end the worker thread.
      socket.on('error', () => socket.destroy());
      socket.end('HTTP/1.1 403 Forbidden\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
    };
    server.on('connect', refuseTunnel);
    server.on('upgrade', refuseTunnel);
    server.on('clientError', (_err, socket) => socket.destroy());
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    // The worker thread may exit while the proxy is idle; it must not keep the thread alive.
    server.unref();
    return proxy;
  }

  /** `http://127.0.0.1:<port>` for `--proxy-server`. */
  get url(): string {
    return `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
  }

  /** Requests refused since the start (page traffic that escaped interception, and Chromium's own). */
  get refused(): number {
    return this.#refused;
  }

  async close(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}
