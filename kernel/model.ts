// The records Quire keeps: organizations, API keys, files, jobs, ledger entries, style presets, documents, assets, bulk jobs,
// webhook endpoints and deliveries, forms and their records, the operators' plugin overrides and audit log.
// Longer than 400 lines: one declaration per stored record, each with the comments that say what its fields mean.
import type { Defaults } from '../contracts/document-json.js';

export type Role = 'owner' | 'admin' | 'member';
export const ROLES: readonly Role[] = ['owner', 'admin', 'member'];

export type JobStatus = 'PENDING' | 'PROCESSING' | 'COMPLETED' | 'FAILED';

export interface Organization {
  id: string;
  name: string;
  plan: string;
  /** Cached sum of the organization's ledger entries, updated in the same write as each entry. */
  balance: number;
  createdAt: string;
}

export interface ApiKeyRecord {
  id: string;
  orgId: string;
  name: string;
  role: Role;
  /** SHA-256 of the full key, hex; the key itself is shown once and never stored. */
  hash: string;
  /** First characters of the key, to recognise it in listings. */
  prefix: string;
  createdAt: string;
  revokedAt: string | null;
  /**
   * An operator key (admin CLI `key create --operator`, docs/operators.md): it calls the /operator routes and nothing
   * of an organization's; its `orgId` is OPERATOR_KEYS_ORG_ID, which names no organization. Absent: false.
   */
  operator?: boolean;
}

/** The `orgId` operator keys are stored under: no organization has it (theirs are UUIDs), so none lists or uses them. */
export const OPERATOR_KEYS_ORG_ID = 'operators';

/** A trusted integration service (e.g. an MCP server) registered by the operator. */
export interface IntegrationClient {
  id: string;
  name: string;
  /** SHA-256 of the client secret, hex. */
  secretHash: string;
  createdAt: string;
  revokedAt: string | null;
}

/**
 * A long-lived grant of one organization to one integration client (`mcp_rt_…`). It is never
 * accepted on the API itself: the client exchanges it for a short-lived `mcp_at_…` access token.
 */
export interface ResourceTokenRecord {
  id: string;
  orgId: string;
  clientId: string;
  role: Role;
  name: string;
  hash: string;
  prefix: string;
  createdAt: string;
  revokedAt: string | null;
}

export interface FileRecord {
  id: string;
  orgId: string;
  filename: string;
  mimeType: string;
  sizeBytes: number;
  kind: 'INPUT' | 'OUTPUT' | 'IMAGE';
  sourceAction: string | null;
  /** Pages of a PDF, counted in a worker at upload; null when unknown or not a PDF. */
  pageCount: number | null;
  expiresAt: string;
  createdAt: string;
}

export interface WebhookConfig {
  webhookUrl: string;
  webhookAuth?: {
    headerName?: string;
    headerValue?: string;
    basicAuthUsername?: string;
    basicAuthPassword?: string;
  };
}

export interface JobRecord {
  id: string;
  /** `render` jobs are served under /render (absent on records written before render jobs existed: tools). */
  kind?: 'tools' | 'render';
  orgId: string;
  pluginId: string;
  action: string;
  status: JobStatus;
  params: Record<string, unknown>;
  /**
   * What the job's answers and events read of `params` once it has finished, set by the service that made the job:
   * as the job finishes, `params` becomes this (a render's whole document is not kept for the rest of the job's life).
   * Absent (records written before it), `params` stays whole.
   */
  paramsShown?: Record<string, unknown>;
  inputFileIds: string[];
  outputFileId: string | null;
  error: string | null;
  errorCode: string | null;
  result: Record<string, unknown> | null;
  webhook: WebhookConfig | null;
  /** Images a render job draws (`/temp-image/<id>`, `https://…`), loaded by the kernel before the worker runs. */
  imageSources?: string[];
  /** Non-blocking findings of the request (unresolved references without strict mode). */
  warnings?: Array<{ path: string; message: string; code: string }>;
  /** The bulk render this job is an item of. */
  bulk?: { id: string; index: number };
  /** The Idempotency-Key of the request that created the job, written with it (a retry after a crash finds the job by it). */
  idempotencyKey?: string;
  estimatedCredits: number;
  chargedCredits: number;
  attempts: number;
  progress: number;
  createdAt: string;
  startedAt: string | null;
  completedAt: string | null;
}

export interface LedgerEntry {
  id: string;
  orgId: string;
  /** Positive for grants, negative for charges. */
  amount: number;
  kind: 'grant' | 'charge';
  jobId: string | null;
  action: string | null;
  note: string | null;
  balanceAfter: number;
  createdAt: string;
}

/**
 * A workspace style preset of one organization (built-in `system:` presets are not stored: they live in
 * contracts/system-styles.ts). Optional text fields are null when unset, so a journal patch can clear them.
 */
export interface StylePresetRecord {
  id: string;
  orgId: string;
  name: string;
  description: string | null;
  category: string | null;
  tags: string[];
  /** At most one preset of an organization is the default; the store clears the others in the same write. */
  isDefault: boolean;
  /** A `defaults` object of document JSON, validated against its contract before it is stored. */
  definition: Defaults;
  /** 1 when created; every update adds 1. */
  version: number;
  createdAt: string;
  updatedAt: string;
}

/**
 * A saved document of the workspace. `config` is document JSON as the client sent it (or as its Extended
 * Markdown parsed), with every temporary image replaced by a permanent `/image/<asset_id>` path; schema
 * defaults are filled in only when it is rendered.
 */
export interface DocumentRecord {
  id: string;
  orgId: string;
  name: string;
  config: Record<string, unknown>;
  /** Rendered beneath the document's own defaults; null for none. */
  stylePresetId: string | null;
  /** The permanent images `config` uses (each counted once); the store deletes an asset with its last document. */
  assetIds: string[];
  /**
   * `config` is what Extended Markdown parsed to (a Markdown create or patch): written back as Markdown it reads as
   * itself (tested over generated documents), so reading it back needs no check. Absent or false after a JSON save.
   */
  fromMarkdown?: boolean;
  /** 1 when created; every change adds 1. */
  version: number;
  createdAt: string;
  updatedAt: string;
}

/** A workspace template of an organization (built-in catalog templates are not stored: they ship with Quire). */
export interface TemplateRecord {
  id: string;
  orgId: string;
  name: string;
  /** Unique among the organization's templates. */
  slug: string;
  category: string | null;
  description: string | null;
  productive: boolean;
  /** The style preset documents made from it render with; null for none. */
  stylePresetId: string | null;
  /** Document JSON, with permanent `/image/` paths like a document's. */
  config: Record<string, unknown>;
  /** The Extended Markdown it was written in, or written from its JSON; null when Markdown cannot carry it (then `warning` says why). */
  markdown: string | null;
  warning: string | null;
  /** The permanent images `config` uses, counted like a document's. */
  assetIds: string[];
  version: number;
  createdAt: string;
  updatedAt: string;
}

/** One version of a reusable block: never changed once written (a restore writes a new one). */
export interface BlockVersionRecord {
  id: string;
  version: number;
  title: string;
  markdown: string;
  /** `{}` when none was given. */
  schema: Record<string, unknown>;
  variables: Record<string, unknown>;
  createdAt: string;
  changeNote: string | null;
  restoredFromVersion: number | null;
  /** The principal that wrote it (`key:<API key id>`). */
  createdBy: string | null;
}

/** A reusable block of an organization with its whole version history, oldest first. */
export interface BlockRecord {
  id: string;
  orgId: string;
  name: string;
  /** Unique among the organization's blocks. */
  slug: string;
  category: string | null;
  tags: string[];
  description: string | null;
  status: 'DRAFT' | 'ACTIVE' | 'ARCHIVED';
  /** The last version's number. */
  currentVersion: number;
  versions: BlockVersionRecord[];
  /**
   * The permanent images any of its versions uses (old versions stay restorable), counted like a document's. Absent
   * in blocks stored before blocks kept assets: read as none.
   */
  assetIds?: string[];
  createdBy: string | null;
  createdAt: string;
  updatedAt: string;
}

/** A permanent image (`/image/<id>`) of an organization, made from a temporary image when a document, template or reusable block that uses it is saved. */
export interface AssetRecord {
  id: string;
  orgId: string;
  mimeType: string;
  sizeBytes: number;
  /** The temporary image it was made from: a second document saved with the same `/temp-image/` shares the asset. */
  sourceImageId: string | null;
  createdAt: string;
}

/** One item of a bulk render: its render job, or why it could not be queued. */
export interface BulkItemRecord {
  index: number;
  /** The row of the uploaded file it came from (POST /bulk-render/file), 1-based as a spreadsheet shows it. */
  row?: number;
  jobId: string | null;
  /** Set when the item could not become a job (invalid variables); such an item is FAILED from the start. */
  error: string | null;
  /** Its output's name in the bulk job's ZIP. */
  filename: string;
  /** The item's final state, written when the bulk job finishes (its render job may be swept later). */
  status?: JobStatus;
}

export interface BulkJobRecord {
  id: string;
  orgId: string;
  documentId: string;
  format: 'PDF' | 'DOCX' | 'ODT';
  status: JobStatus;
  items: BulkItemRecord[];
  webhook: WebhookConfig | null;
  /** The ZIP of every completed item's output, written when the bulk job finishes. */
  outputFileId: string | null;
  /** The credits of the items that could run (each charged when it completes). */
  estimatedCredits: number;
  /** As JobRecord's: the Idempotency-Key of the request that created the bulk job (its items do not carry it). */
  idempotencyKey?: string;
  completedItems: number;
  failedItems: number;
  error: string | null;
  createdAt: string;
  completedAt: string | null;
}

/** The events an organization's webhook endpoint may ask for (its `events` filter); `ping` is sent by POST …/test only. */
export const WEBHOOK_EVENTS = ['job.completed', 'job.failed'] as const;
export type WebhookEventName = (typeof WEBHOOK_EVENTS)[number];

/** A signing secret of an endpoint; a rotated-out one stays valid until `expiresAt` (the current one has none). */
export interface WebhookSecret {
  secret: string;
  createdAt: string;
  expiresAt: string | null;
}

/**
 * A reusable, signed webhook endpoint of an organization (DESIGN §8). Its secrets are stored as they are (they must
 * sign); they are answered once (at creation and rotation), never listed, logged or put in an error.
 */
export interface WebhookEndpointRecord {
  id: string;
  orgId: string;
  url: string;
  /** The events it receives; empty: every event. */
  events: WebhookEventName[];
  description: string | null;
  enabled: boolean;
  /** Why it was disabled by its failures (null when enabled, or disabled by a client). */
  disabledReason: string | null;
  /** The current secret first. */
  secrets: WebhookSecret[];
  /** When its deliveries started failing without a success since; null while they succeed. */
  failingSince: string | null;
  version: number;
  createdAt: string;
  updatedAt: string;
}

/** An event queued with the write that finishes a job or a bulk job: one delivery per matching endpoint. */
export interface WebhookEvent {
  /** The event's id: the `Quire-Event-Id` of every delivery and redelivery of it. */
  id: string;
  event: WebhookEventName;
  createdAt: string;
}

export interface WebhookAttemptRecord {
  attempt: number;
  at: string;
  /** The receiver's HTTP status; null when none came (refused URL, network error, timeout). */
  status: number | null;
  durationMs: number;
  /** The first KiB of the receiver's answer. */
  response: string;
  error: string | null;
}

export type WebhookDeliveryStatus = 'PENDING' | 'DELIVERED' | 'FAILED';

/** One event on its way to one endpoint, with each attempt's outcome; kept 30 days after it was created. */
export interface WebhookDeliveryRecord {
  id: string;
  orgId: string;
  endpointId: string;
  eventId: string;
  event: WebhookEventName | 'ping';
  /** When the event happened: the body's `createdAt`, the same in every redelivery. */
  eventCreatedAt: string;
  /** What the body is made from at each attempt (a job or a bulk job as it is then), or a ping. */
  subject: { kind: 'job' | 'bulk' | 'ping'; id: string };
  /** The whole body of a ping (nothing to read it from later). */
  payload?: Record<string, unknown>;
  status: WebhookDeliveryStatus;
  attempts: number;
  /** When the next attempt is due (PENDING); null once the delivery ended. */
  nextAttemptAt: string | null;
  /** The node attempting it now, until when (internal: a lapsed lease lets another node take it). */
  lease: { owner: string; until: string } | null;
  attemptsLog: WebhookAttemptRecord[];
  createdAt: string;
  updatedAt: string;
  redeliveryOf: string | null;
}

// ---------------------------------------------------------------- interactive forms and their records (docs/forms.md)

/** How a form field asks for its variable's value. */
export const FORM_FIELD_KINDS = ['text', 'textarea', 'number', 'date', 'boolean', 'choice', 'image', 'list', 'table'] as const;
export type FormFieldKind = (typeof FORM_FIELD_KINDS)[number];

export interface FormChoice {
  value: string;
  label: string;
}

/** A column of a table field: each row's input is named `<field>[<row>][<column>]`. */
export interface FormColumn {
  name: string;
  label: string;
  kind: 'text' | 'number' | 'date';
  required: boolean;
}

/**
 * One field of a form: derived from one of the document's variables, with what the owner overrode. Bounds apply by
 * kind: `min`/`max` to numbers (numbers) and dates (`YYYY-MM-DD`); `minLength`/`maxLength`/`pattern` to text and
 * textarea; `minItems`/`maxItems` to list items and table rows. Unused ones are null.
 */
export interface FormField {
  /** The variable's name, and the input's `name`. */
  name: string;
  kind: FormFieldKind;
  label: string;
  help: string | null;
  placeholder: string | null;
  required: boolean;
  min: number | string | null;
  max: number | string | null;
  minLength: number | null;
  maxLength: number | null;
  /** A regular expression (JavaScript syntax, no flags) the whole text must match; checked for catastrophic backtracking when the form is saved. */
  pattern: string | null;
  /** Shown when `pattern` does not match (default: a generic sentence in the form's locale). */
  patternMessage: string | null;
  /** `choice`: the allowed values with their labels. */
  choices: FormChoice[] | null;
  /** `table`: the columns of a row. */
  columns: FormColumn[] | null;
  minItems: number | null;
  maxItems: number | null;
  /** `boolean`: the texts the variable gets when checked and when not. */
  trueText: string | null;
  falseText: string | null;
  /** What the input holds when the page opens: the document's own value of the variable (null: empty). */
  defaultValue: FormValue | null;
}

/** An uploaded image of a record: a permanent asset of the organization, deleted with the record. */
export interface FormImageValue {
  assetId: string;
  mimeType: string;
  sizeBytes: number;
  filename: string;
}

/** A submitted value, by the field's kind: text/textarea/date/choice a string, number a number, boolean a boolean, list the item texts, table the rows, image the upload. */
export type FormValue = string | number | boolean | string[] | Array<Record<string, string | number>> | FormImageValue;

/**
 * An interactive form of a saved document (DESIGN §8): a public page anyone with its link can fill. The link's token is
 * an HMAC of the form's id and `tokenNonce` under the server's signing secret: it is never stored, a new nonce revokes
 * every earlier link, and `revokedAt`/`expiresAt` end the current one.
 */
export interface FormRecord {
  id: string;
  orgId: string;
  documentId: string;
  title: string;
  description: string | null;
  fields: FormField[];
  /** Each record is rendered at once (a render job whose `filloutId` is the record's id). */
  autoRender: boolean;
  /** The format of those renders. */
  format: 'PDF' | 'DOCX' | 'ODT';
  /** The language of the page's own texts (buttons, messages): one of the built-in locales. */
  locale: string;
  /** Replacements of the page's own texts, by key (docs/forms.md lists the keys). */
  labels: Record<string, string>;
  /** Submissions accepted per minute (one bucket per form). */
  submissionsPerMinute: number;
  /** Keep the submitter's IP address on each record (off by default). */
  recordIp: boolean;
  tokenNonce: string;
  /**
   * The nonces rotate-token replaced, newest first (at most 20): a link made with one of them is recognised as a
   * link the owner ended (410), not as a wrong one (404). Absent on forms never rotated.
   */
  retiredTokenNonces?: string[];
  expiresAt: string | null;
  revokedAt: string | null;
  version: number;
  createdAt: string;
  updatedAt: string;
}

/** Who sent a record: what the browser told, never the IP address unless the form keeps it. */
export interface FilloutSubmitter {
  userAgent: string | null;
  locale: string | null;
  ip: string | null;
}

/** A record: one submission of a form, its values as checked against the form's fields (`filloutId` of its renders). */
export interface FilloutRecord {
  id: string;
  orgId: string;
  formId: string;
  documentId: string;
  values: Record<string, FormValue>;
  /** The images uploaded with it (each counted once); the store deletes an asset with its last record. */
  assetIds: string[];
  submitter: FilloutSubmitter;
  /** The render the submission started (a form with `autoRender`); null when none. */
  jobId: string | null;
  /** Why that render could not be queued (e.g. the organization is out of credits); null otherwise. */
  renderError: { code: string; message: string } | null;
  createdAt: string;
}

/**
 * A plugin switched on or off at runtime by an operator (docs/operators.md), one per plugin: the last switch wins. It
 * overrides the manifest's default; a plugin the config file disables stays disabled whatever the override says.
 */
export interface PluginOverride {
  pluginId: string;
  enabled: boolean;
  /** What the operator said when switching, or null. */
  reason: string | null;
  /** The operator key that switched it. */
  byKeyId: string;
  at: string;
}

/** One line of the operators' audit log: who switched which plugin, when and why. */
export interface OperatorAuditEntry {
  id: string;
  action: 'plugin.disable' | 'plugin.enable';
  pluginId: string;
  reason: string | null;
  keyId: string;
  /** The key's name when it acted (a key keeps its name, but the log outlives revoked keys). */
  keyName: string;
  createdAt: string;
}
