// What a plugin declares (manifest + contract) and what its worker receives and returns.
import type { TSchema } from '@sinclair/typebox';
import type { PluginManifest } from '../contracts/plugin-manifest.js';

export const KERNEL_VERSION = '1.0.0';

// The manifest's types are derived from the schema the kernel validates manifests against
// (contracts/plugin-manifest.ts); the rest of this file holds what a schema cannot say: functions (`provision`,
// `componentsNeeded`), the worker URL, and the worker's input and output, which never cross as JSON.
export type {
  PluginKind,
  ActionFiles,
  ActionPages,
  ActionCredits,
  ActionDeclaration,
  SystemComponent,
  PoolLimits,
  PluginManifest,
} from '../contracts/plugin-manifest.js';

export interface ActionContract {
  /** JSON Schema of the request body (without `webhook`, which the kernel adds to every job route). */
  input: TSchema;
  /** JSON Schema of the job `result` the action returns. */
  result: TSchema;
}

export type PluginContract = Record<string, ActionContract>;

/** What a plugin's entry module exports as default. */
export interface PluginDefinition {
  manifest: PluginManifest;
  contract: PluginContract;
  /** URL of the worker module (`new URL('./worker.js', import.meta.url)`). */
  worker: URL | string;
  /**
   * Main-process set-up run once at boot when the plugin is enabled (a warm LibreOffice, a connection
   * pool): the returned methods are what the worker's `input.call(method, arg)` reaches. Throwing refuses
   * the boot with the message (name the setting to fix).
   */
  provision?: (ctx: ProvisionContext) => PluginServices | Promise<PluginServices>;
  /**
   * The optional system components (see `SystemComponent.optional`) one request needs, decided at job
   * creation from the validated body and the detected types of its input files.
   */
  componentsNeeded?: (request: ComponentRequest) => string[];
}

export interface ProvisionContext {
  /** The operator's `plugins.<id>.settings` ({} when none). */
  settings: Record<string, unknown>;
  /** Optional components that are not installed. */
  missing: string[];
  log(level: 'info' | 'warn' | 'error', msg: string, fields?: Record<string, unknown>): void;
}

/** Services a plugin keeps in the main process for its workers; arguments and results are structured-cloned, whole Uint8Arrays moved. */
export interface PluginServices {
  methods: Record<string, (arg: any) => Promise<unknown>>;
  /** Called when the server stops. */
  close(): Promise<void>;
}

export interface ComponentRequest {
  action: string;
  params: Record<string, unknown>;
  files: Array<{ field: string; mimeType: string }>;
}

export function definePlugin(def: PluginDefinition): PluginDefinition {
  return def;
}

/**
 * The argument of a worker module's optional `warmUp` export: await it between costly steps. It resolves at
 * once, or after a short gap when the thread warms up beside threads that are busy with jobs (a recycle).
 */
export type WarmUpPause = () => Promise<void>;

/** One input file handed to a worker. */
export interface WorkerFile {
  field: string;
  fileId: string;
  filename: string;
  mimeType: string;
  bytes: Uint8Array;
}

export interface WorkerInput<P = Record<string, unknown>> {
  params: P;
  files: WorkerFile[];
  /** Operator settings for this plugin from the Quire config (`plugins.<id>.settings`). */
  settings: Record<string, unknown>;
  /**
   * Calls a method of the plugin's provisioned services in the main process (present only when the
   * definition has `provision`). A failure rejects with an error carrying the service's `code`, which
   * fails the job with that code when not caught (declare it in `errors`).
   */
  call?: (method: string, arg?: unknown) => Promise<unknown>;
  /** Present only for plugins whose manifest declares `outbound`: the settings of the outbound URL policy. */
  outbound?: OutboundSettings;
  /** Present only for plugins whose manifest declares `llm`, and only when the operator configured an endpoint. */
  llm?: LlmEndpoint;
}

/**
 * The operator's OpenAI-compatible endpoint. `apiKey` is a secret: send it only as the request's
 * `Authorization: Bearer` header; never put it in a result, an error message or a log entry.
 */
export interface LlmEndpoint {
  /** Without a trailing slash; the chat API is `${baseUrl}/chat/completions`. */
  baseUrl: string;
  model: string;
  apiKey?: string;
  timeoutMs: number;
  /** QUIRE_LLM_ALLOW_PRIVATE_NETWORK: this endpoint may be loopback or private even when other requests may not. */
  allowPrivateNetwork: boolean;
}

/** A line a worker asks the kernel to write to its log; the kernel adds the job id and action. */
export interface WorkerLogEntry {
  level: 'info' | 'warn';
  msg: string;
  fields?: Record<string, string | number | boolean | null>;
}

/** What a worker needs to build the same URL policy as the kernel (`new UrlPolicy(outbound)`). */
export interface OutboundSettings {
  /** QUIRE_ALLOW_PRIVATE_NETWORK: loopback, private and link-local targets allowed (metadata hosts never). */
  allowPrivateNetwork: boolean;
}

export interface WorkerOutput {
  file?: { bytes: Uint8Array; mimeType: string; filename: string };
  result?: Record<string, unknown>;
  /**
   * Importer plugins only: images the kernel stores as temporary images of the caller's organization (the
   * checks of POST /images/upload apply). Every string of `result` equal to `pendingImagePath(ref)` is
   * replaced by the stored image's `/temp-image/<id>` path.
   */
  images?: Array<{ ref: string; bytes: Uint8Array }>;
  /** Lines for the server log (which engine answered, why a fallback was taken); at most 20 are written. */
  log?: WorkerLogEntry[];
}

/**
 * The stand-in an importer writes for an image it returns in `images` (ref: letters, digits, `_`, `-`). It
 * has the shape of a temporary-image path, so the document validates before the kernel stores the image.
 */
export function pendingImagePath(ref: string): string {
  return `/temp-image/pending-${ref}`;
}

/** Throw this from a worker to fail the job with a declared code and a message the client sees. */
export class PluginError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
    this.name = 'PluginError';
  }
}
