// The records Quire keeps: organizations, API keys, files, jobs, ledger entries, style presets.
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
}

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
