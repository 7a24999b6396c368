// What a plugin declares (manifest + contract) and what its worker receives and returns.
import type { TSchema } from '@sinclair/typebox';

export const KERNEL_VERSION = '1.0.0';

export type PluginKind = 'render-target' | 'tool' | 'lens' | 'importer';
export const PLUGIN_KINDS: readonly PluginKind[] = ['render-target', 'tool', 'lens', 'importer'];

export interface ActionContract {
  /** JSON Schema of the request body (without `webhook`, which the kernel adds to every job route). */
  input: TSchema;
  /** JSON Schema of the job `result` the action returns. */
  result: TSchema;
}

export type PluginContract = Record<string, ActionContract>;

export interface ActionFiles {
  /**
   * Body field holding a file id (string) or file ids (string[]); or a path into the body whose segments
   * are separated by `.`, where `*` stands for every property of an object or item of an array
   * (`variables.*.src`: the `src` of each entry of `variables` that has one).
   */
  field: string;
  /** Accepted MIME types, checked against the upload's detected type (415 otherwise). */
  accept: string[];
  /** Largest accepted upload in bytes, checked at creation (413 otherwise). */
  maxBytes?: number;
}

/**
 * A page-metered action (Lens): credits per processed page and a page limit per organization plan, both
 * decided at creation. The pages counted are those of the PDF in `file` that the job processes: the
 * pages named by the specs in `specs` when given, else the first `firstPages` (all when absent). Any
 * other input type (DOCX, ODT, Markdown) counts as one page.
 */
export interface ActionPages {
  /** Single-file input field holding the document. */
  file: string;
  /** Page-spec field selecting the pages (also list it in `pageSpecs` so specs are checked). */
  specs?: string;
  /** Without specs, only the first this many pages are processed. */
  firstPages?: number;
  /**
   * Most pages a job may process, by organization plan; a plan not listed has no limit. Operators
   * override entries with `plugins.<id>.settings.planPageLimits` (a number, or null for no limit).
   */
  planLimits?: Record<string, number>;
  /** Fields (or values of fields) that need a PDF input; otherwise 400 naming the field. */
  pdfOnly?: Array<{ field: string; values?: string[] }>;
  /** Fields allowed only when another field has one of some values; otherwise 400 naming the field. */
  onlyWhen?: Array<{ field: string; other: string; values: string[] }>;
}

/** Credits of one job: `perRequest`, plus `perPage` times the processed pages of a page-metered action. */
export interface ActionCredits {
  perRequest: number;
  /** A number, or a price per value of a body field (e.g. by `outputFormat`). */
  perPage?: number | { field: string; values: Record<string, number> };
}

export interface ActionDeclaration {
  /** Public action name, e.g. `pdf.merge`; also the job's `action`. */
  name: string;
  /** Name of the worker module's export that runs the action. */
  export: string;
  /** The tools route of the action. Render targets have none: `POST /render` picks them by `target`. */
  route?: { method: 'POST'; path: string };
  /** For render targets: the output format this action produces (`pdf`, `docx`, `odt`, `png`, `jpeg`). */
  target?: string;
  summary: string;
  description?: string;
  /** Input file fields; resolved (404), type-checked (415) and passed to the worker as bytes. */
  files?: ActionFiles[];
  /**
   * Body fields holding page specs (`n`, `a-b`, `a-`) checked at creation against the page count
   * of the PDF in `file` (a single-file field): malformed or out-of-range specs answer 400.
   */
  pageSpecs?: Array<{ field: string; file: string }>;
  /** Page metering and plan page limits (see ActionPages). */
  pages?: ActionPages;
  /** Credits charged when the job completes. */
  credits: ActionCredits;
}

export interface SystemComponent {
  /** Name shown to clients and operators, e.g. `qpdf`, `libreoffice`. */
  name: string;
  /** Command run at boot to probe the component; exit code 0 means present. */
  probe: string[];
  /** How an operator installs it. */
  install: string;
  /**
   * Needed by some requests only: when it is missing the plugin stays enabled, and the requests for which
   * the definition's `componentsNeeded` names it answer 503 PLUGIN_UNAVAILABLE.
   */
  optional?: boolean;
}

export interface PoolLimits {
  maxThreads: number;
  /** Tasks waiting for a thread; further jobs stay PENDING, and creation refuses past `maxBacklog`. */
  maxQueue: number;
  /** Old-generation heap of each worker thread. */
  memoryMb: number;
  /** Deadline of one action; past it the task's thread is killed and the job fails. */
  timeoutMs: number;
  /** Unfinished jobs allowed for this plugin before creation answers 503 with Retry-After. */
  maxBacklog: number;
  /**
   * Replace the pool's threads after this many tasks per thread (0 or absent: never). For engines that
   * keep native memory a thread only returns when it exits (Typst).
   */
  recycleAfter?: number;
  /**
   * How long an idle thread is kept before it is stopped (default 30 000 ms). Plugins whose threads hold
   * something costly to start (a warm browser) keep them longer.
   */
  idleTimeoutMs?: number;
  /**
   * Keep each thread's event loop running between tasks (default false: Piscina pauses an idle thread in
   * Atomics.wait, which is fastest). For workers that prepare the next task in the background, like
   * html-to-pdf opening the next job's browser page; without it that work would only go on once the next task came.
   */
  runBetweenTasks?: boolean;
}

export interface PluginManifest {
  id: string;
  version: string;
  /** semver range of kernel versions the plugin works with. */
  kernel: string;
  kind: PluginKind;
  description: string;
  actions: ActionDeclaration[];
  requires: SystemComponent[];
  /**
   * The worker makes outbound requests itself (an HTML page's sub-resources). It must send every one through
   * the URL policy (`sdk/url-policy.ts`, `sdk/outbound-http.ts`); the kernel hands it the policy's
   * settings in `WorkerInput.outbound`. Plugins without it get no `outbound` and must not use the network.
   */
  outbound?: boolean;
  /**
   * The worker may send document text to the operator's OpenAI-compatible endpoint (QUIRE_LLM_*); the kernel
   * hands it the endpoint in `WorkerInput.llm` when one is configured. Needs `outbound`: the request goes
   * through the URL policy like any other.
   */
  llm?: boolean;
  pool: PoolLimits;
  /** Error codes the worker may fail a job with, and what each means. */
  errors: Record<string, string>;
}

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
