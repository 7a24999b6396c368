// The plugin manifest as a TypeBox schema: the kernel validates every manifest against it at load, and the SDK derives the manifest's types from it.
import { Type, type Static } from '@sinclair/typebox';

export const PluginKindSchema = Type.Union([Type.Literal('render-target'), Type.Literal('tool'), Type.Literal('lens'), Type.Literal('importer')]);
export type PluginKind = Static<typeof PluginKindSchema>;

export const ActionFilesSchema = Type.Object({
  /**
   * Body field holding a file id (string) or file ids (string[]); or a path into the body whose segments
   * are separated by `.`, where `*` stands for every property of an object or item of an array
   * (`variables.*.src`: the `src` of each entry of `variables` that has one).
   */
  field: Type.String({ minLength: 1 }),
  /** Accepted MIME types, checked against the upload's detected type (415 otherwise). */
  accept: Type.Array(Type.String({ minLength: 3 }), { minItems: 1 }),
  /** Largest accepted upload in bytes, checked at creation (413 otherwise). */
  maxBytes: Type.Optional(Type.Integer({ minimum: 1 })),
});
export type ActionFiles = Static<typeof ActionFilesSchema>;

/**
 * A page-metered action (Lens): credits per processed page and a page limit per organization plan, both
 * decided at creation. The pages counted are those of the PDF in `file` that the job processes: the
 * pages named by the specs in `specs` when given, else the first `firstPages` (all when absent). Any
 * other input type (DOCX, ODT, Markdown) counts as one page.
 */
export const ActionPagesSchema = Type.Object(
  {
    /** Single-file input field holding the document. */
    file: Type.String({ minLength: 1 }),
    /** Page-spec field selecting the pages (also list it in `pageSpecs` so specs are checked). */
    specs: Type.Optional(Type.String({ minLength: 1 })),
    /** Without specs, only the first this many pages are processed. */
    firstPages: Type.Optional(Type.Integer({ minimum: 1 })),
    /**
     * Most pages a job may process, by organization plan; a plan not listed has no limit. Operators
     * override entries with `plugins.<id>.settings.planPageLimits` (a number, or null for no limit).
     */
    planLimits: Type.Optional(Type.Record(Type.String(), Type.Integer({ minimum: 1 }))),
    /** Fields (or values of fields) that need a PDF input; otherwise 400 naming the field. */
    pdfOnly: Type.Optional(Type.Array(Type.Object({ field: Type.String(), values: Type.Optional(Type.Array(Type.String())) }, { additionalProperties: false }))),
    /** Fields allowed only when another field has one of some values; otherwise 400 naming the field. */
    onlyWhen: Type.Optional(Type.Array(Type.Object({ field: Type.String(), other: Type.String(), values: Type.Array(Type.String()) }, { additionalProperties: false }))),
  },
  { additionalProperties: false },
);
export type ActionPages = Static<typeof ActionPagesSchema>;

/** Credits of one job: `perRequest`, plus `perPage` times the processed pages of a page-metered action. */
export const ActionCreditsSchema = Type.Object({
  perRequest: Type.Number({ minimum: 0 }),
  /** A number, or a price per value of a body field (e.g. by `outputFormat`). */
  perPage: Type.Optional(Type.Union([Type.Number({ minimum: 0 }), Type.Object({ field: Type.String(), values: Type.Record(Type.String(), Type.Number({ minimum: 0 })) })])),
});
export type ActionCredits = Static<typeof ActionCreditsSchema>;

export const ActionDeclarationSchema = Type.Object({
  /** Public action name, e.g. `pdf.merge`; also the job's `action`. */
  name: Type.String({ pattern: '^[a-z][a-z0-9-]*(\\.[a-z][a-z0-9-]*)+$' }),
  /** Name of the worker module's export that runs the action. */
  export: Type.String({ pattern: '^[A-Za-z_$][A-Za-z0-9_$]*$' }),
  /** The tools route of the action. Render targets have none: `POST /render` picks them by `target`. */
  route: Type.Optional(Type.Object({ method: Type.Literal('POST'), path: Type.String({ pattern: '^/[a-z0-9/_-]+$' }) })),
  /** For render targets: the output format this action produces (`pdf`, `docx`, `odt`, `png`, `jpeg`). */
  target: Type.Optional(Type.String({ pattern: '^[a-z0-9]+$' })),
  summary: Type.String({ minLength: 1 }),
  description: Type.Optional(Type.String()),
  /** Input file fields; resolved (404), type-checked (415) and passed to the worker as bytes. */
  files: Type.Optional(Type.Array(ActionFilesSchema)),
  /**
   * Body fields holding page specs (`n`, `a-b`, `a-`) checked at creation against the page count
   * of the PDF in `file` (a single-file field): malformed or out-of-range specs answer 400.
   */
  pageSpecs: Type.Optional(Type.Array(Type.Object({ field: Type.String(), file: Type.String() }, { additionalProperties: false }))),
  /** Page metering and plan page limits (see ActionPagesSchema). */
  pages: Type.Optional(ActionPagesSchema),
  /** Credits charged when the job completes. */
  credits: ActionCreditsSchema,
});
export type ActionDeclaration = Static<typeof ActionDeclarationSchema>;

export const SystemComponentSchema = Type.Object({
  /** Name shown to clients and operators, e.g. `qpdf`, `libreoffice`. */
  name: Type.String({ minLength: 1 }),
  /** Command run at boot to probe the component; exit code 0 means present. */
  probe: Type.Array(Type.String(), { minItems: 1 }),
  /** How an operator installs it. */
  install: Type.String(),
  /**
   * Needed by some requests only: when it is missing the plugin stays enabled, and the requests for which
   * the definition's `componentsNeeded` names it answer 503 PLUGIN_UNAVAILABLE.
   */
  optional: Type.Optional(Type.Boolean()),
});
export type SystemComponent = Static<typeof SystemComponentSchema>;

export const PoolLimitsSchema = Type.Object({
  maxThreads: Type.Integer({ minimum: 1 }),
  /** Tasks waiting for a thread; further jobs stay PENDING, and creation refuses past `maxBacklog`. */
  maxQueue: Type.Integer({ minimum: 0 }),
  /** Old-generation heap of each worker thread. */
  memoryMb: Type.Integer({ minimum: 32 }),
  /** Deadline of one action; past it the task's thread is killed and the job fails. */
  timeoutMs: Type.Integer({ minimum: 100 }),
  /** Unfinished jobs allowed for this plugin before creation answers 503 with Retry-After. */
  maxBacklog: Type.Integer({ minimum: 1 }),
  /**
   * Replace the pool's threads after this many tasks per thread (0 or absent: never). For engines that
   * keep native memory a thread only returns when it exits (Typst).
   */
  recycleAfter: Type.Optional(Type.Integer({ minimum: 0 })),
  /**
   * How long an idle thread is kept before it is stopped (default 30 000 ms). Plugins whose threads hold
   * something costly to start (a warm browser) keep them longer.
   */
  idleTimeoutMs: Type.Optional(Type.Integer({ minimum: 1000 })),
  /**
   * Keep each thread's event loop running between tasks (default false: Piscina pauses an idle thread in
   * Atomics.wait, which is fastest). For workers that prepare the next task in the background, like
   * html-to-pdf opening the next job's browser page; without it that work would only go on once the next task came.
   */
  runBetweenTasks: Type.Optional(Type.Boolean()),
  /**
   * Keep the thread that lists the worker's exports at boot, warming the engine in its spare time (default false:
   * that thread ends at once and the first job starts a thread). For the render pools, whose first render should be fast.
   */
  warmAtBoot: Type.Optional(Type.Boolean()),
  /** Young generation of each thread in MB (default memoryMb / 8 between 16 and 64); light tools need little. */
  youngGenerationMb: Type.Optional(Type.Integer({ minimum: 1, maximum: 256 })),
  /** A thread whose V8 heap exceeds this many MB after a task is replaced, like after recycleAfter (default memoryMb / 2). */
  recycleHeapMb: Type.Optional(Type.Integer({ minimum: 16 })),
  /**
   * What one thread holds at peak in MB, its engine's native memory included (default 128, one share of the process's
   * thread budget): a thread takes ceil(threadMemoryMb / 128) slots of QUIRE_MEMORY_BUDGET_MB's budget, so heavy
   * engines (Lens's PP-OCR) run beside fewer other threads instead of past the budget.
   */
  threadMemoryMb: Type.Optional(Type.Integer({ minimum: 16 })),
});
export type PoolLimits = Static<typeof PoolLimitsSchema>;

export const PluginManifestSchema = Type.Object({
  id: Type.String({ pattern: '^[a-z][a-z0-9-]{1,62}$' }),
  version: Type.String({ minLength: 5 }),
  /** semver range of kernel versions the plugin works with. */
  kernel: Type.String({ minLength: 1 }),
  kind: PluginKindSchema,
  description: Type.String({ minLength: 1 }),
  actions: Type.Array(ActionDeclarationSchema, { minItems: 1 }),
  requires: Type.Array(SystemComponentSchema),
  pool: PoolLimitsSchema,
  /**
   * The worker makes outbound requests itself (an HTML page's sub-resources). It must send every one through
   * the URL policy (the SDK's `UrlPolicy` and its outbound helpers); the kernel hands it the policy's settings in
   * `WorkerInput.outbound`. Plugins without it get no `outbound` and must not use the network.
   */
  outbound: Type.Optional(Type.Boolean()),
  /**
   * The worker may send document text to the operator's OpenAI-compatible endpoint (QUIRE_LLM_*); the kernel
   * hands it the endpoint in `WorkerInput.llm` when one is configured. Needs `outbound`: the request goes
   * through the URL policy like any other.
   */
  llm: Type.Optional(Type.Boolean()),
  /**
   * Native addons (package names) the worker loads that Node cannot load again in a thread once the thread that first
   * loaded them has ended ("Module did not self-register": onnxruntime-node). The kernel loads each once in the main
   * thread, resolved from the worker's file, so that every later thread of the pool (recycled, or started after an
   * idle one ended) gets the library already registered.
   */
  nativeModules: Type.Optional(Type.Array(Type.String({ pattern: '^(@[a-z0-9][a-z0-9._-]*/)?[a-z0-9][a-z0-9._-]*$' }), { maxItems: 8 })),
  /** Error codes the worker may fail a job with, and what each means. */
  errors: Type.Record(Type.String({ pattern: '^[A-Z][A-Z0-9_]*$' }), Type.String()),
});
export type PluginManifest = Static<typeof PluginManifestSchema>;
