// A loopback server speaking the OpenAI chat-completions protocol for Lens tests: `POST …/chat/completions`
// is answered by the test's current script, and every request is recorded (path, headers, parsed body).
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ChatRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  /** The parsed JSON body (null when it was not JSON). */
  body: any;
}

/**
 * What the script answers: `content` → 200 with a completion whose `choices[0].message.content` is that
 * string; `status` → that status with `body`; `hang` → never answers (the connection stays open until close()).
 */
export type ChatReply = { content: string; finishReason?: string } | { status: number; body?: string } | { hang: true };

export interface ChatServer {
  /** `http://127.0.0.1:<port>` */
  url: string;
  requests: ChatRequest[];
  /** Sets how the next requests are answered. */
  script(fn: (req: ChatRequest) => ChatReply): void;
  close(): Promise<void>;
}

/** The JSON answer the script gives, as the content of a completion. */
export function answerJson(value: unknown): ChatReply {
  return { content: JSON.stringify(value) };
}

export async function startChatServer(): Promise<ChatServer> {
  const requests: ChatRequest[] = [];
  let script: (req: ChatRequest) => ChatReply = () => ({ status: 503, body: '{"error":{"message":"no script"}}' });
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let body: unknown = null;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        /* recorded as null */
      }
      const recorded: ChatRequest = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body };
      requests.push(recorded);
      if (req.method !== 'POST' || !/\/chat\/completions$/.test(req.url ?? '')) return void res.writeHead(404, { 'Content-Type': 'application/json' }).end('{"error":{"message":"not found"}}');
      const reply = script(recorded);
      if ('hang' in reply) return;
      if ('status' in reply) return void res.writeHead(reply.status, { 'Content-Type': 'application/json' }).end(reply.body ?? '');
      const completion = {
        id: `chatcmpl-${requests.length}`,
        object: 'chat.completion',
        created: 1_700_000_000,
        model: (body as { model?: string } | null)?.model ?? 'unknown',
        choices: [{ index: 0, message: { role: 'assistant', content: reply.content, refusal: null }, finish_reason: reply.finishReason ?? 'stop' }],
        usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
      };
      res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(completion));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    script(fn) {
      script = fn;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
