// The public form page driven as a browser without JavaScript would: a document with a variable of every kind, its
// form made through the API, the page fetched (its CSRF cookie and hidden field kept) and posted back as a form post.
import * as assert from 'uvu/assert';
import { crc32 } from 'node:zlib';
import type { ApiClient } from './api-client.js';
import { uploadRedPng } from './render-jobs.js';

type Json = Record<string, any>;
const API = '/api/v1/dev';

/** A document with a variable of every kind (a choice and a boolean are text variables the form overrides). */
export async function everyKindDocument(api: ApiClient, name = 'Order form'): Promise<string> {
  const config = {
    document: { type: 'pdf', title: 'Order' },
    variables: {
      client_name: 'Sample client',
      notes: 'First line\nSecond line',
      due_date: '2026-12-31',
      amount: 10,
      size: 'M',
      express: 'no',
      logo: { type: 'image', src: await uploadRedPng(api), alt: 'Logo', width: '20%' },
      tasks: { type: 'list', items: ['Design'], ordered: false },
      lines: { type: 'table', columns: ['Item', 'Qty'], rows: [{ Item: 'Chair', Qty: 2 }] },
    },
    sections: [
      {
        type: 'flow',
        content: [
          { type: 'h1', text: 'Order of {{client_name}}' },
          { type: 'text', text: 'Due {{due_date}}. Amount {{amount}}. Size {{size}}. Express {{express}}.' },
          { type: 'variableRef', name: 'notes' },
          { type: 'variableRef', name: 'tasks' },
          { type: 'variableRef', name: 'lines' },
          { type: 'variableRef', name: 'logo' },
        ],
      },
    ],
  };
  const r = await api.post(`${API}/documents`, { name, config });
  assert.is(r.status, 201, r.bytes.toString());
  return r.body.id;
}

/** The owner's overrides that give the document's text variables the remaining kinds and some rules. */
export const EVERY_KIND_FIELDS = [
  { name: 'client_name', required: true, help: 'As on your invoice.' },
  { name: 'amount', min: 1, max: 1000 },
  { name: 'size', kind: 'choice', required: true, choices: [{ value: 'S', label: 'Small' }, { value: 'M', label: 'Medium' }, { value: 'L', label: 'Large' }] },
  { name: 'express', kind: 'boolean', trueText: 'Express delivery', falseText: 'Standard delivery' },
];

export async function createForm(api: ApiClient, documentId: string, body: Json = {}): Promise<Json> {
  const r = await api.post(`${API}/documents/${documentId}/forms`, { fields: EVERY_KIND_FIELDS, ...body });
  assert.is(r.status, 201, r.bytes.toString());
  return r.body;
}

/** What a page fetch gives a form client: the status, headers and HTML, and the cookie it set. */
export interface PageResponse {
  status: number;
  headers: Headers;
  html: string;
}

/** The value of the input named `name` (tests read the page's own markup, whose attributes are always double-quoted). */
export function hiddenValue(html: string, name: string): string {
  const m = new RegExp(`name="${name.replace(/[[\]]/g, '\\$&')}" value="([^"]*)"`).exec(html);
  assert.ok(m, `no input ${name} in the page`);
  return unescapeHtml(m![1]!);
}

/** A visitor of one form link: keeps the CSRF cookie the page set, posts like a browser without JavaScript. */
export class FormVisitor {
  cookie: string | null = null;
  csrf: string | null = null;

  constructor(
    readonly baseUrl: string,
    readonly publicUrl: string,
  ) {}

  get path(): string {
    const u = new URL(this.publicUrl);
    return u.pathname + u.search;
  }

  async open(path = this.path): Promise<PageResponse> {
    const res = await fetch(this.baseUrl + path, { headers: this.cookie ? { Cookie: this.cookie } : {}, redirect: 'manual' });
    const set = res.headers.get('set-cookie');
    if (set) this.cookie = set.split(';')[0]!;
    const html = await res.text();
    if (res.status === 200 && html.includes('name="_csrf"')) this.csrf = hiddenValue(html, '_csrf');
    return { status: res.status, headers: res.headers, html };
  }

  /** Posts fields (URL-encoded, or multipart when `files` are given) with the CSRF field unless told otherwise. */
  async post(fields: Array<[string, string]>, options: { files?: Array<[string, Uint8Array, string]>; csrf?: boolean; headers?: Record<string, string>; path?: string } = {}): Promise<PageResponse> {
    const all: Array<[string, string]> = options.csrf === false ? fields : [['_csrf', this.csrf ?? ''], ...fields];
    let body: BodyInit;
    const headers: Record<string, string> = { ...(this.cookie ? { Cookie: this.cookie } : {}), ...options.headers };
    if (options.files) {
      const form = new FormData();
      for (const [k, v] of all) form.append(k, v);
      for (const [k, bytes, filename] of options.files) form.append(k, new Blob([new Uint8Array(bytes)]), filename);
      body = form;
    } else {
      body = new URLSearchParams(all);
    }
    const res = await fetch(this.baseUrl + (options.path ?? this.path), { method: 'POST', body, headers, redirect: 'manual' });
    const html = await res.text();
    return { status: res.status, headers: res.headers, html };
  }
}

/** HTML entities of our escaping, undone (to compare texts the page shows). */
export function unescapeHtml(text: string): string {
  return text.replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&#96;/g, '`').replace(/&amp;/g, '&');
}

/** A PNG whose header claims `width` × `height` pixels in a few bytes: what would decode to gigabytes (a decompression bomb). */
export function pngBomb(width = 100_000, height = 100_000): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const out = Buffer.alloc(12 + data.length);
    out.writeUInt32BE(data.length, 0);
    body.copy(out, 4);
    out.writeUInt32BE(crc32(body) >>> 0, 8 + data.length);
    return out;
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 2, 0, 0, 0], 8);
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', ihdr), chunk('IDAT', Buffer.from([0x78, 0x9c, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01])), chunk('IEND', Buffer.alloc(0))]);
}
