// A small HTTP client for tests: JSON calls, multipart uploads, job polling (shared with the SDK's testing export).
import { pollToolsJob, uploadFileId } from '../../sdk/testing.js';

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  bytes: Buffer;
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
    const res = await fetch(this.baseUrl + path, { method, headers: h, body: payload });
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
    const res = await fetch(this.baseUrl + '/api/v1/dev/tools/files/upload', { method: 'POST', headers: h, body: form });
    const buf = Buffer.from(await res.arrayBuffer());
    return { status: res.status, headers: res.headers, body: buf.length ? JSON.parse(buf.toString('utf8')) : null, bytes: buf };
  }

  /** Uploads and returns the file id, failing loudly otherwise. */
  uploadId(bytes: Uint8Array, filename: string): Promise<string> {
    return uploadFileId(this, bytes, filename);
  }

  /** Polls a tools job until COMPLETED or FAILED (bounded). */
  waitForJob(jobId: string, timeoutMs = 60_000): Promise<any> {
    return pollToolsJob(this, jobId, timeoutMs);
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
