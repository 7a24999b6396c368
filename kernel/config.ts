// Operator settings: environment variables, optionally a JSON file named by QUIRE_CONFIG (environment wins).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Type, type Static } from '@sinclair/typebox';
import { compileSchema, formatAjvErrors } from '../contracts/schema.js';
import { DEFAULT_MEMORY_BUDGET_MB } from './thread-budget.js';

const PoolOverride = Type.Object(
  {
    maxThreads: Type.Optional(Type.Integer({ minimum: 1, maximum: 64 })),
    maxQueue: Type.Optional(Type.Integer({ minimum: 0, maximum: 10_000 })),
    memoryMb: Type.Optional(Type.Integer({ minimum: 32, maximum: 16_384 })),
    timeoutMs: Type.Optional(Type.Integer({ minimum: 100, maximum: 3_600_000 })),
    maxBacklog: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000 })),
    recycleAfter: Type.Optional(Type.Integer({ minimum: 0, maximum: 10_000_000 })),
    idleTimeoutMs: Type.Optional(Type.Integer({ minimum: 1000, maximum: 86_400_000 })),
    warmAtBoot: Type.Optional(Type.Boolean()),
    youngGenerationMb: Type.Optional(Type.Integer({ minimum: 1, maximum: 256 })),
    recycleHeapMb: Type.Optional(Type.Integer({ minimum: 16, maximum: 16_384 })),
    threadMemoryMb: Type.Optional(Type.Integer({ minimum: 16, maximum: 65_536 })),
  },
  { additionalProperties: false },
);

const PluginSettings = Type.Object(
  {
    enabled: Type.Optional(Type.Boolean()),
    pool: Type.Optional(PoolOverride),
    settings: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  },
  { additionalProperties: false },
);

export const ConfigFileSchema = Type.Object(
  {
    port: Type.Optional(Type.Integer({ minimum: 0, maximum: 65535 })),
    host: Type.Optional(Type.String()),
    dataDir: Type.Optional(Type.String({ minLength: 1 })),
    databaseUrl: Type.Optional(Type.String({ pattern: '^postgres(ql)?://' })),
    publicUrl: Type.Optional(Type.String({ minLength: 1 })),
    bootstrapApiKey: Type.Optional(Type.String({ pattern: '^ak_[A-Za-z0-9]{32,128}$' })),
    bootstrapCredits: Type.Optional(Type.Integer({ minimum: 0 })),
    allowPrivateNetwork: Type.Optional(Type.Boolean()),
    rateLimitPerMinute: Type.Optional(Type.Integer({ minimum: 0 })),
    previewsPerMinute: Type.Optional(Type.Integer({ minimum: 0 })),
    maxUploadBytes: Type.Optional(Type.Integer({ minimum: 1 })),
    maxImageBytes: Type.Optional(Type.Integer({ minimum: 1 })),
    maxImagePixels: Type.Optional(Type.Integer({ minimum: 1 })),
    maxImageSide: Type.Optional(Type.Integer({ minimum: 1 })),
    maxJsonBodyBytes: Type.Optional(Type.Integer({ minimum: 1024 })),
    fileTtlSeconds: Type.Optional(Type.Integer({ minimum: 1 })),
    downloadTokenTtlSeconds: Type.Optional(Type.Integer({ minimum: 1 })),
    signingSecret: Type.Optional(Type.String({ minLength: 32 })),
    metricsToken: Type.Optional(Type.String({ minLength: 32, maxLength: 1024 })),
    sweepIntervalSeconds: Type.Optional(Type.Number({ exclusiveMinimum: 0 })),
    shutdownGraceSeconds: Type.Optional(Type.Number({ minimum: 0 })),
    memoryBudgetMb: Type.Optional(Type.Integer({ minimum: 100, maximum: 1_048_576 })),
    jobMaxAttempts: Type.Optional(Type.Integer({ minimum: 1, maximum: 20 })),
    jobLeaseSeconds: Type.Optional(Type.Number({ minimum: 1, maximum: 3600 })),
    idempotencyTtlSeconds: Type.Optional(Type.Integer({ minimum: 1 })),
    idempotencyLeaseMs: Type.Optional(Type.Integer({ minimum: 100, maximum: 3_600_000 })),
    webhookTimeoutMs: Type.Optional(Type.Integer({ minimum: 100, maximum: 60_000 })),
    webhookRetryBaseMs: Type.Optional(Type.Integer({ minimum: 1, maximum: 86_400_000 })),
    webhookMaxAttempts: Type.Optional(Type.Integer({ minimum: 1, maximum: 20 })),
    webhookDisableAfterMs: Type.Optional(Type.Integer({ minimum: 0 })),
    llmBaseUrl: Type.Optional(Type.String({ minLength: 1, maxLength: 2048 })),
    llmModel: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    llmApiKey: Type.Optional(Type.String({ minLength: 1, maxLength: 4096 })),
    llmTimeoutMs: Type.Optional(Type.Integer({ minimum: 1000, maximum: 300_000 })),
    llmAllowPrivateNetwork: Type.Optional(Type.Boolean()),
    logLevel: Type.Optional(Type.Union([Type.Literal('trace'), Type.Literal('debug'), Type.Literal('info'), Type.Literal('warn'), Type.Literal('error'), Type.Literal('silent')])),
    externalPlugins: Type.Optional(Type.Array(Type.String({ minLength: 1 }))),
    plugins: Type.Optional(Type.Record(Type.String(), PluginSettings)),
  },
  { additionalProperties: false },
);

export type ConfigFile = Static<typeof ConfigFileSchema>;
export type PluginOperatorSettings = Static<typeof PluginSettings>;
export type PoolOverrideSettings = Static<typeof PoolOverride>;

export interface QuireConfig {
  port: number;
  host: string;
  dataDir: string;
  /** A PostgreSQL connection URL: the metadata store lives there instead of in the data dir (the default). */
  databaseUrl?: string;
  /** Base of downloadUrls; when not set, the server fills it in from the address it listens on. */
  publicUrl: string;
  publicUrlConfigured: boolean;
  bootstrapApiKey?: string;
  bootstrapCredits: number;
  allowPrivateNetwork: boolean;
  rateLimitPerMinute: number;
  /** POST /render/markdown/preview per API key per minute, a bucket of its own beside `rateLimitPerMinute`; 0: none. */
  previewsPerMinute: number;
  maxUploadBytes: number;
  /** Limits of POST /images/upload: file size, and width × height and longest side read from the header (decompression bombs). */
  maxImageBytes: number;
  maxImagePixels: number;
  maxImageSide: number;
  maxJsonBodyBytes: number;
  fileTtlSeconds: number;
  downloadTokenTtlSeconds: number;
  signingSecret?: string;
  /** The bearer token of GET /metrics (docs/metrics.md); without one, metrics are off and the route answers 404. */
  metricsToken?: string;
  sweepIntervalSeconds: number;
  shutdownGraceSeconds: number;
  /**
   * The memory the server should stay within (MB, default 800): it sets how many plugin threads may live at once,
   * across all pools (kernel/thread-budget.ts threadLimit; docs/setup.md).
   */
  memoryBudgetMb: number;
  jobMaxAttempts: number;
  /** On PostgreSQL: how long a node's claim on a running job lasts unless renewed (renewed every third of it). */
  jobLeaseSeconds: number;
  /** How long an Idempotency-Key's first answer is kept and replayed (docs/idempotency.md). */
  idempotencyTtlSeconds: number;
  /** How long a request holds its Idempotency-Key unless its server renews the hold (every third of it); a lapsed hold means that server died. */
  idempotencyLeaseMs: number;
  webhookTimeoutMs: number;
  /** Webhook endpoints: the delay before the first retry (each next one 3.2 times longer, ± 20 %). */
  webhookRetryBaseMs: number;
  /** Webhook endpoints: attempts of a delivery before it ends FAILED. */
  webhookMaxAttempts: number;
  /** Webhook endpoints: an endpoint failing this long without a success is disabled. */
  webhookDisableAfterMs: number;
  /** The OpenAI-compatible endpoint of plugins that declare `llm` (Lens); absent when QUIRE_LLM_BASE_URL is not set. */
  llm?: LlmEndpointConfig;
  logLevel: NonNullable<ConfigFile['logLevel']>;
  /** Where relative externalPlugins paths are resolved from (the config file's folder, or cwd). */
  configDir: string;
  externalPlugins: string[];
  plugins: Record<string, PluginOperatorSettings>;
}

/** An OpenAI-compatible chat-completions endpoint chosen by the operator. `apiKey` is a secret: never logged, never returned. */
export interface LlmEndpointConfig {
  /** Base URL without a trailing slash; requests go to `${baseUrl}/chat/completions`. */
  baseUrl: string;
  model: string;
  apiKey?: string;
  timeoutMs: number;
  /** The endpoint may be a loopback or private address (a local model server); metadata hosts stay refused. */
  allowPrivateNetwork: boolean;
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** Environment variable → config key, with the parser for its text. */
const ENV_SETTINGS: Array<[string, keyof ConfigFile, 'int' | 'number' | 'bool' | 'string']> = [
  ['PORT', 'port', 'int'],
  ['HOST', 'host', 'string'],
  ['QUIRE_DATA_DIR', 'dataDir', 'string'],
  ['QUIRE_DATABASE_URL', 'databaseUrl', 'string'],
  ['QUIRE_PUBLIC_URL', 'publicUrl', 'string'],
  ['QUIRE_BOOTSTRAP_API_KEY', 'bootstrapApiKey', 'string'],
  ['QUIRE_BOOTSTRAP_CREDITS', 'bootstrapCredits', 'int'],
  ['QUIRE_ALLOW_PRIVATE_NETWORK', 'allowPrivateNetwork', 'bool'],
  ['QUIRE_RATE_LIMIT_PER_MINUTE', 'rateLimitPerMinute', 'int'],
  ['QUIRE_PREVIEWS_PER_MINUTE', 'previewsPerMinute', 'int'],
  ['QUIRE_MAX_UPLOAD_BYTES', 'maxUploadBytes', 'int'],
  ['QUIRE_MAX_IMAGE_BYTES', 'maxImageBytes', 'int'],
  ['QUIRE_MAX_IMAGE_PIXELS', 'maxImagePixels', 'int'],
  ['QUIRE_MAX_IMAGE_SIDE', 'maxImageSide', 'int'],
  ['QUIRE_MAX_JSON_BODY_BYTES', 'maxJsonBodyBytes', 'int'],
  ['QUIRE_FILE_TTL_SECONDS', 'fileTtlSeconds', 'int'],
  ['QUIRE_DOWNLOAD_TOKEN_TTL_SECONDS', 'downloadTokenTtlSeconds', 'int'],
  ['QUIRE_SIGNING_SECRET', 'signingSecret', 'string'],
  ['QUIRE_METRICS_TOKEN', 'metricsToken', 'string'],
  ['QUIRE_SWEEP_INTERVAL_SECONDS', 'sweepIntervalSeconds', 'number'],
  ['QUIRE_SHUTDOWN_GRACE_SECONDS', 'shutdownGraceSeconds', 'number'],
  ['QUIRE_MEMORY_BUDGET_MB', 'memoryBudgetMb', 'int'],
  ['QUIRE_JOB_MAX_ATTEMPTS', 'jobMaxAttempts', 'int'],
  ['QUIRE_JOB_LEASE_SECONDS', 'jobLeaseSeconds', 'number'],
  ['QUIRE_IDEMPOTENCY_TTL_SECONDS', 'idempotencyTtlSeconds', 'int'],
  ['QUIRE_IDEMPOTENCY_LEASE_MS', 'idempotencyLeaseMs', 'int'],
  ['QUIRE_WEBHOOK_TIMEOUT_MS', 'webhookTimeoutMs', 'int'],
  ['QUIRE_WEBHOOK_RETRY_BASE_MS', 'webhookRetryBaseMs', 'int'],
  ['QUIRE_WEBHOOK_MAX_ATTEMPTS', 'webhookMaxAttempts', 'int'],
  ['QUIRE_WEBHOOK_DISABLE_AFTER_MS', 'webhookDisableAfterMs', 'int'],
  ['QUIRE_LLM_BASE_URL', 'llmBaseUrl', 'string'],
  ['QUIRE_LLM_MODEL', 'llmModel', 'string'],
  ['QUIRE_LLM_API_KEY', 'llmApiKey', 'string'],
  ['QUIRE_LLM_TIMEOUT_MS', 'llmTimeoutMs', 'int'],
  ['QUIRE_LLM_ALLOW_PRIVATE_NETWORK', 'llmAllowPrivateNetwork', 'bool'],
  ['QUIRE_LOG_LEVEL', 'logLevel', 'string'],
];

/** The environment variable that sets each config key; used in messages and docs. */
export const ENV_NAME_OF: Record<string, string> = Object.fromEntries(ENV_SETTINGS.map(([env, key]) => [key, env]));

function parseEnvValue(env: string, text: string, kind: 'int' | 'number' | 'bool' | 'string'): unknown {
  switch (kind) {
    case 'string':
      return text;
    case 'bool':
      if (/^(true|1|yes)$/i.test(text)) return true;
      if (/^(false|0|no)$/i.test(text)) return false;
      throw new ConfigError(`${env}=${JSON.stringify(text)} is not a boolean; use true or false.`);
    case 'int':
    case 'number': {
      const n = Number(text);
      if (text.trim() === '' || !Number.isFinite(n) || (kind === 'int' && !Number.isInteger(n))) {
        throw new ConfigError(`${env}=${JSON.stringify(text)} is not ${kind === 'int' ? 'an integer' : 'a number'}.`);
      }
      return n;
    }
  }
}

const validateConfigFile = compileSchema<ConfigFile>(ConfigFileSchema);

export function loadConfig(env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): QuireConfig {
  let file: ConfigFile = {};
  let configDir = cwd;
  const configPath = env.QUIRE_CONFIG;
  if (configPath) {
    const absolute = path.resolve(cwd, configPath);
    configDir = path.dirname(absolute);
    let text: string;
    try {
      text = readFileSync(absolute, 'utf8');
    } catch (err) {
      throw new ConfigError(`QUIRE_CONFIG names ${absolute}, which cannot be read: ${(err as Error).message}`);
    }
    try {
      file = JSON.parse(text) as ConfigFile;
    } catch (err) {
      throw new ConfigError(`QUIRE_CONFIG file ${absolute} is not valid JSON: ${(err as Error).message}`);
    }
    if (!validateConfigFile(file)) {
      throw new ConfigError(`QUIRE_CONFIG file ${absolute} is invalid: ${formatAjvErrors(validateConfigFile.errors).map((e) => `${e.path}: ${e.message}`).join('; ')}`);
    }
  }
  const merged: ConfigFile = { ...file };
  for (const [name, key, kind] of ENV_SETTINGS) {
    const text = env[name];
    if (text !== undefined && text !== '') (merged as Record<string, unknown>)[key] = parseEnvValue(name, text, kind);
  }
  if (!validateConfigFile(merged)) {
    const problems = formatAjvErrors(validateConfigFile.errors).map((e) => {
      const key = e.path.split('.')[0] ?? '';
      return `${ENV_NAME_OF[key] ?? key}: ${e.message}`;
    });
    throw new ConfigError(`Invalid settings: ${problems.join('; ')}`);
  }
  const port = merged.port ?? 8080;
  const host = merged.host ?? '0.0.0.0';
  return {
    port,
    host,
    dataDir: path.resolve(configDir, merged.dataDir ?? './data'),
    databaseUrl: merged.databaseUrl,
    publicUrl: (merged.publicUrl ?? `http://${host === '0.0.0.0' || host === '::' ? 'localhost' : host}:${port}`).replace(/\/+$/, ''),
    publicUrlConfigured: merged.publicUrl !== undefined,
    bootstrapApiKey: merged.bootstrapApiKey,
    bootstrapCredits: merged.bootstrapCredits ?? 10_000,
    allowPrivateNetwork: merged.allowPrivateNetwork ?? false,
    rateLimitPerMinute: merged.rateLimitPerMinute ?? 100,
    previewsPerMinute: merged.previewsPerMinute ?? 60,
    maxUploadBytes: merged.maxUploadBytes ?? 50 * 1024 * 1024,
    maxImageBytes: merged.maxImageBytes ?? 20 * 1024 * 1024,
    maxImagePixels: merged.maxImagePixels ?? 50_000_000,
    maxImageSide: merged.maxImageSide ?? 20_000,
    maxJsonBodyBytes: merged.maxJsonBodyBytes ?? 10 * 1024 * 1024,
    fileTtlSeconds: merged.fileTtlSeconds ?? 24 * 3600,
    downloadTokenTtlSeconds: merged.downloadTokenTtlSeconds ?? 15 * 60,
    signingSecret: merged.signingSecret,
    metricsToken: merged.metricsToken,
    sweepIntervalSeconds: merged.sweepIntervalSeconds ?? 60,
    shutdownGraceSeconds: merged.shutdownGraceSeconds ?? 30,
    memoryBudgetMb: merged.memoryBudgetMb ?? DEFAULT_MEMORY_BUDGET_MB,
    jobMaxAttempts: merged.jobMaxAttempts ?? 3,
    jobLeaseSeconds: merged.jobLeaseSeconds ?? 30,
    idempotencyTtlSeconds: merged.idempotencyTtlSeconds ?? 24 * 3600,
    idempotencyLeaseMs: merged.idempotencyLeaseMs ?? 30_000,
    webhookTimeoutMs: merged.webhookTimeoutMs ?? 10_000,
    webhookRetryBaseMs: merged.webhookRetryBaseMs ?? 60_000,
    webhookMaxAttempts: merged.webhookMaxAttempts ?? 8,
    webhookDisableAfterMs: merged.webhookDisableAfterMs ?? 3 * 24 * 3600 * 1000,
    llm: llmEndpoint(merged),
    logLevel: merged.logLevel ?? 'info',
    configDir,
    externalPlugins: merged.externalPlugins ?? [],
    plugins: merged.plugins ?? {},
  };
}

/** The LLM endpoint settings, checked together: a URL needs a model; the other keys make no sense without a URL. */
function llmEndpoint(c: ConfigFile): LlmEndpointConfig | undefined {
  const name = (key: keyof ConfigFile) => ENV_NAME_OF[key] ?? key;
  if (c.llmBaseUrl === undefined) {
    const stray = (['llmModel', 'llmApiKey', 'llmTimeoutMs', 'llmAllowPrivateNetwork'] as const).filter((k) => c[k] !== undefined);
    if (stray.length) throw new ConfigError(`Invalid settings: ${stray.map(name).join(', ')} ${stray.length > 1 ? 'are' : 'is'} set but ${name('llmBaseUrl')} is not; set the endpoint's base URL (e.g. https://api.openai.com/v1) or remove ${stray.length > 1 ? 'them' : 'it'}.`);
    return undefined;
  }
  let url: URL;
  try {
    url = new URL(c.llmBaseUrl);
  } catch {
    throw new ConfigError(`Invalid settings: ${name('llmBaseUrl')} is not an absolute URL; use e.g. https://api.openai.com/v1 or http://127.0.0.1:8000/v1.`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ConfigError(`Invalid settings: ${name('llmBaseUrl')} must use http or https, not ${url.protocol.replace(/:$/, '')}.`);
  // Said without echoing the URL: its user part would be the secret.
  if (url.username || url.password) throw new ConfigError(`Invalid settings: ${name('llmBaseUrl')} contains a user name or password; put the key in ${name('llmApiKey')} instead.`);
  if (url.search || url.hash) throw new ConfigError(`Invalid settings: ${name('llmBaseUrl')} must not have a query or fragment; requests go to <base URL>/chat/completions.`);
  if (c.llmModel === undefined) throw new ConfigError(`Invalid settings: ${name('llmBaseUrl')} is set but ${name('llmModel')} is not; name the model the endpoint should use.`);
  return {
    baseUrl: url.href.replace(/\/+$/, ''),
    model: c.llmModel,
    apiKey: c.llmApiKey,
    timeoutMs: c.llmTimeoutMs ?? 60_000,
    allowPrivateNetwork: c.llmAllowPrivateNetwork ?? false,
  };
}
