// Builds the OpenAPI 3.0 document from the route list (core routes and plugin contracts alike).
import { ProblemSchema } from '../contracts/common.js';
import type { RouteDefinition } from './context.js';

/** TypeBox emits JSON Schema (draft 7 style); OpenAPI 3.0 wants its own dialect. */
export function toOpenApiSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(toOpenApiSchema);
  if (!schema || typeof schema !== 'object') return schema;
  const s: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(schema as Record<string, unknown>)) {
    if (k === '$id' || k === '$schema') continue;
    s[k] = toOpenApiSchema(v);
  }
  if ('const' in s) {
    s.enum = [s.const];
    delete s.const;
  }
  // Quire's own keyword (the words of a 400 for a pattern) is an extension in OpenAPI's dialect.
  if ('patternHint' in s) {
    s['x-pattern-hint'] = s.patternHint;
    delete s.patternHint;
  }
  if (typeof s.exclusiveMinimum === 'number') {
    s.minimum = s.exclusiveMinimum;
    s.exclusiveMinimum = true;
  }
  if (typeof s.exclusiveMaximum === 'number') {
    s.maximum = s.exclusiveMaximum;
    s.exclusiveMaximum = true;
  }
  if (s.patternProperties && typeof s.patternProperties === 'object') {
    const values = Object.values(s.patternProperties as Record<string, unknown>);
    s.additionalProperties = values[0] ?? true;
    delete s.patternProperties;
  }
  for (const key of ['anyOf', 'oneOf'] as const) {
    const list = s[key] as Array<Record<string, unknown>> | undefined;
    if (!list) continue;
    const nonNull = list.filter((x) => x.type !== 'null');
    if (nonNull.length < list.length) {
      if (nonNull.length === 1) {
        delete s[key];
        Object.assign(s, nonNull[0], { nullable: true });
      } else {
        s[key] = nonNull;
        s.nullable = true;
      }
    }
    // A union of literals reads better as one enum.
    const current = s[key] as Array<Record<string, unknown>> | undefined;
    if (current && current.length && current.every((x) => Array.isArray(x.enum) && (x.enum as unknown[]).length === 1 && Object.keys(x).every((k) => k === 'enum' || k === 'type'))) {
      s.enum = current.map((x) => (x.enum as unknown[])[0]);
      const types = [...new Set(current.map((x) => x.type))];
      if (types.length === 1 && types[0]) s.type = types[0];
      delete s[key];
    }
  }
  return s;
}

const problemResponse = (description: string) => ({
  description,
  content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
});

/** The header of every idempotent route (docs/idempotency.md). */
const IDEMPOTENCY_KEY_PARAMETER = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description: 'Makes a retry safe: the first answer is stored for 24 h and replayed (with `Idempotency-Replayed: true`) for the same key and the same request; see docs/idempotency.md.',
  schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x20-\\x7E]+$' },
};

const STATUS_TEXT: Record<number, string> = {
  200: 'OK',
  201: 'Created',
  202: 'Accepted: the job was created; poll the Location or wait for the webhook',
  204: 'No content',
};

export function buildOpenApi(routes: RouteDefinition[], info: { version: string; serverUrl: string }): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const r of routes) {
    if (!r.doc || (typeof r.doc.hidden === 'function' ? r.doc.hidden() : r.doc.hidden)) continue;
    const path = r.path.replace(/:([A-Za-z]+)/g, '{$1}');
    const parameters: unknown[] = [...r.path.matchAll(/:([A-Za-z]+)/g)].map((m) => ({ name: m[1], in: 'path', required: true, schema: { type: 'string' } }));
    for (const q of r.doc.query ?? []) parameters.push({ name: q.name, in: 'query', required: q.required ?? false, description: q.description, schema: toOpenApiSchema(q.schema) });
    if (r.idempotent) parameters.push(IDEMPOTENCY_KEY_PARAMETER);
    const responses: Record<string, unknown> = {};
    for (const [status, body] of Object.entries(r.doc.responses)) {
      const description = STATUS_TEXT[Number(status)] ?? 'Response';
      if (body === null) responses[status] = { description };
      else if (typeof body === 'string' || Array.isArray(body)) {
        const binary = { schema: { type: 'string', format: 'binary' } };
        responses[status] = { description, content: Object.fromEntries((typeof body === 'string' ? [body] : body).map((type) => [type, binary])) };
      }
      else responses[status] = { description, content: { 'application/json': { schema: toOpenApiSchema(body) } } };
    }
    if (r.auth !== 'none') responses['401'] = problemResponse('Missing, malformed or wrong kind of credentials');
    if (r.auth !== 'none') responses['429'] = problemResponse('Rate limit exceeded (Retry-After)');
    if (r.auth === 'operator') responses['403'] = problemResponse('FORBIDDEN: the key is not an operator key (docs/operators.md)');
    if (r.doc.body) responses['400'] = problemResponse('The request fails its contract; `errors` lists each field');
    if (r.idempotent) {
      responses['409'] ??= problemResponse('IDEMPOTENCY_IN_FLIGHT: a request with this Idempotency-Key is still being answered (Retry-After)');
      responses['422'] ??= problemResponse('IDEMPOTENCY_KEY_REUSED: this Idempotency-Key was used for another request');
    }
    responses.default = problemResponse('Error (see docs/errors.md)');
    const op: Record<string, unknown> = {
      operationId: `${r.method.toLowerCase()}${path.replace(/[{}]/g, '').split(/[/.-]/).map((p) => (p ? p[0]!.toUpperCase() + p.slice(1) : '')).join('')}`,
      summary: r.doc.summary,
      ...(r.doc.description ? { description: r.doc.description } : {}),
      ...(r.doc.deprecated ? { deprecated: true } : {}),
      tags: [r.doc.tag],
      ...(parameters.length ? { parameters } : {}),
      responses,
      security: r.auth === 'none' ? [] : r.auth === 'operator' ? [{ ApiKey: [] }] : r.auth === 'download' ? [{ ApiKey: [] }, { BearerToken: [] }, { DownloadToken: [] }] : [{ ApiKey: [] }, { BearerToken: [] }],
    };
    if (r.doc.body === 'multipart-file') {
      op.requestBody = {
        required: true,
        content: { 'multipart/form-data': { schema: { type: 'object', required: ['file'], properties: { file: { type: 'string', format: 'binary' } } } } },
      };
    } else if (r.doc.body) {
      op.requestBody = { required: true, content: { 'application/json': { schema: toOpenApiSchema(r.doc.body) } } };
    }
    (paths[path] ??= {})[r.method.toLowerCase()] = op;
  }
  return {
    openapi: '3.0.3',
    info: {
      title: 'Quire API',
      version: info.version,
      description: 'Document generation, PDF tools and document understanding. Job-creating endpoints answer 202 with a job; poll it or receive a webhook.',
    },
    servers: [{ url: info.serverUrl }],
    paths,
    components: {
      schemas: { Problem: toOpenApiSchema(ProblemSchema) },
      securitySchemes: {
        ApiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
        BearerToken: { type: 'http', scheme: 'bearer', description: 'mcp_at_ access tokens only' },
        DownloadToken: { type: 'apiKey', in: 'query', name: 'token' },
      },
    },
  };
}
