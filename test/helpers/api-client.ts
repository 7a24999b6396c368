// A small HTTP client for tests: JSON calls, multipart uploads, job polling.
export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  bytes: Buffer;
}

/**
 * fetch, tried again when the request died on a connection the server had already closed. After a few idle
 * seconds the server ends a keep-alive connection; when the client has just been busy (decoding images,
 * say) undici has not yet read those closes and can pick such a connection for the next request, which
 * then fails with EPIPE before the server has read it (undici retries only idempotent requests itself).
 * A short pause lets undici see the closes; nothing reached the server, so sending again is safe.
 */
async function fetchOnce(url: string, init: RequestInit): Promise<Response> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fetch(url, init);
    } catch (err) {
      const code = ((err as Error).cause as { code?: string } | undefined)?.code;
      if ((code !== 'EPIPE' && code !== 'UND_ERR_SOCKET') || attempt === 3) throw err;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

export class ApiClient {
  constructor(
    readonly baseUrl: string,
    public key: string | null,
  ) {}

  withKey(key: string | null): ApiClient {
    return new ApiClient(this.baseUrl, key);
  }

  async request<T = any>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<ApiResponse<T>> {
    const h: Record<string, string> = { ...headers };
    if (this.key) h['X-API-Key'] = this.key;
    let payload: BodyInit | undefined;
    if (body !== undefined) {
      h['Content-Type'] ??= 'application/json';
      payload = typeof body === 'string' ? body : JSON.stringify(body);
    }
    const res = await fetchOnce(this.baseUrl + path, { method, headers: h, body: payload });
    const bytes = Buffer.from(await res.arrayBuffer());
    const type = res.headers.get('content-type') ?? '';
    const parsed = type.includes('json') && bytes.length ? JSON.parse(bytes.toString('utf8')) : bytes;
    return { status: res.status, headers: res.headers, body: parsed as T, bytes };
  }

  get<T = any>(path: string, headers?: Record<string, string>) {
    return this.request<T>('GET', path, undefined, headers);
  }

  post<T = any>(path: string, body: unknown, headers?: Record<string, string>) {
    return this.request<T>('POST', path, body, headers);
  }

  async upload(bytes: Uint8Array, filename: string, field = 'file'): Promise<ApiResponse> {
    const form = new FormData();
    form.append(field, new Blob([bytes as Uint8Array<ArrayBuffer>]), filename);
    const h: Record<string, string> = {};
    if (this.key) h['X-API-Key'] = this.key;
    const res = await fetchOnce(this.baseUrl + '/api/v1/dev/tools/files/upload', { method: 'POST', headers: h, body: form });
    const buf = Buffer.from(await res.arrayBuffer());
    return { status: res.status, headers: res.headers, body: buf.length ? JSON.parse(buf.toString('utf8')) : null, bytes: buf };
  }

  /** Uploads and returns the file id, failing loudly otherwise. */
  async uploadId(bytes: Uint8Array, filename: string): Promise<string> {
    const r = await this.upload(bytes, filename);
    if (r.status !== 201) throw new Error(`upload of ${filename} answered ${r.status}: ${r.bytes.toString()}`);
    return r.body.id as string;
  }

  /** Polls a tools job until COMPLETED or FAILED (bounded). */
  async waitForJob(jobId: string, timeoutMs = 60_000): Promise<any> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const r = await this.get(`/api/v1/dev/tools/jobs/${jobId}`);
      if (r.status !== 200) throw new Error(`job ${jobId} answered ${r.status}: ${r.bytes.toString()}`);
      if (r.body.status === 'COMPLETED' || r.body.status === 'FAILED') return r.body;
      if (Date.now() > deadline) throw new Error(`job ${jobId} still ${r.body.status} after ${timeoutMs} ms`);
      await new Promise((res) => setTimeout(res, 50));
    }
  }

  async download(url: string, withKey = false): Promise<ApiResponse> {
    const h: Record<string, string> = {};
    if (withKey && this.key) h['X-API-Key'] = this.key;
    const res = await fetch(url, { headers: h });
    const bytes = Buffer.from(await res.arrayBuffer());
    const type = res.headers.get('content-type') ?? '';
    return { status: res.status, headers: res.headers, body: type.includes('json') ? JSON.parse(bytes.toString('utf8')) : bytes, bytes };
  }
}
