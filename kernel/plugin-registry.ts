// Loads built-in and third-party plugins, checks manifest ⇄ contract ⇄ worker exports, and starts their pools; switches
// them off and on at runtime when an operator says so (docs/operators.md).
import path from 'node:path';
import { execFile } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import semver from 'semver';
import { ajv, compileSchema, formatAjvErrors } from '../contracts/schema.js';
import { KERNEL_VERSION, type ActionDeclaration, type PluginDefinition, type PluginServices, type PoolLimits } from '../sdk/plugin-api.js';
import { PluginPool } from './plugin-pool.js';
import { DEFAULT_MEMORY_BUDGET_MB, ThreadBudget, threadLimit } from './thread-budget.js';
import type { QuireConfig } from './config.js';
import { HttpError, KERNEL_JOB_ERRORS } from '../contracts/errors.js';
import { PluginManifestSchema } from '../contracts/plugin-manifest.js';
import { KeyedMutex } from './keyed-mutex.js';
import type { PluginOverride } from './model.js';

export type PluginState = 'enabled' | 'disabled' | 'unavailable';

export interface LoadedPlugin {
  definition: PluginDefinition;
  source: string;
  builtin: boolean;
  state: PluginState;
  /** Names of missing system components: required ones when unavailable, optional ones (the plugin stays enabled) otherwise. */
  missing: string[];
  reason: string | null;
  pool: PluginPool | null;
  settings: Record<string, unknown>;
  /** What `provision` returned, closed with the pools. */
  services: PluginServices | null;
  /** `plugins.<id>.enabled = false` in the config file: it wins over any runtime override. */
  configDisabled: boolean;
  /** Required system components found missing at boot (the plugin cannot be enabled while any is). */
  requiredMissing: string[];
  /** An operator's runtime switch, as last applied here; null when none was ever stored. */
  override: PluginOverride | null;
}

export interface RegisteredAction {
  plugin: LoadedPlugin;
  action: ActionDeclaration;
}

export class PluginLoadError extends Error {
  override name = 'PluginLoadError';
}

const validateManifest = compileSchema(PluginManifestSchema);

export class PluginRegistry {
  readonly plugins = new Map<string, LoadedPlugin>();
  readonly #routes = new Map<string, RegisteredAction>();
  readonly #targets = new Map<string, RegisteredAction>();
  readonly #actions = new Map<string, RegisteredAction>();
  /** One switch of a plugin at a time: an enable still starting its pool is finished before a disable closes it. */
  readonly #switching = new KeyedMutex();
  /** Pools of plugins disabled at runtime, closing once the jobs on their threads finish. */
  readonly #closing = new Set<Promise<void>>();
  /** The live plugin threads all pools share (QUIRE_MEMORY_BUDGET_MB; kernel/thread-budget.ts). */
  readonly threadBudget: ThreadBudget;

  constructor(
    private readonly config: QuireConfig,
    private readonly log?: { info(o: object, msg: string): void; warn(o: object, msg: string): void; error(o: object, msg: string): void },
  ) {
    this.threadBudget = new ThreadBudget(threadLimit(config.memoryBudgetMb ?? DEFAULT_MEMORY_BUDGET_MB));
  }

  /**
   * Loads every plugin and refuses (throws PluginLoadError) on any mismatch, so a broken plugin
   * stops the boot with a message naming it rather than failing requests later.
   */
  async load(builtin: string[], builtinBase: URL, overrides: PluginOverride[] = []): Promise<void> {
    const sources = [
      ...builtin.map((spec) => ({ url: new URL(spec, builtinBase).href, source: spec, builtin: true })),
      ...this.config.externalPlugins.map((spec) => ({ url: resolveExternal(spec, this.config.configDir), source: spec, builtin: false })),
    ];
    for (const { url, source, builtin: isBuiltin } of sources) {
      let mod: { default?: PluginDefinition };
      try {
        mod = (await import(url)) as { default?: PluginDefinition };
      } catch (err) {
        throw new PluginLoadError(`Plugin ${source} cannot be loaded: ${(err as Error).message}. Check the path or module name in externalPlugins.`);
      }
      const def = mod.default;
      if (!def || typeof def !== 'object' || !def.manifest) {
        throw new PluginLoadError(`Plugin ${source} has no default export with a manifest; export default definePlugin({manifest, contract, worker}).`);
      }
      this.#check(def, source);
      const settings = this.config.plugins[def.manifest.id] ?? {};
      this.plugins.set(def.manifest.id, {
        definition: def,
        source,
        builtin: isBuiltin,
        state: settings.enabled === false ? 'disabled' : 'enabled',
        missing: [],
        reason: settings.enabled === false ? 'disabled by the operator (plugins.' + def.manifest.id + '.enabled = false)' : null,
        pool: null,
        settings: settings.settings ?? {},
        services: null,
        configDisabled: settings.enabled === false,
        requiredMissing: [],
        override: null,
      });
      for (const action of def.manifest.actions) {
        const reg = { plugin: this.plugins.get(def.manifest.id)!, action };
        if (action.route) this.#routes.set(action.route.path, reg);
        if (action.target) this.#targets.set(action.target, reg);
        this.#actions.set(action.name, reg);
      }
    }
    for (const id of Object.keys(this.config.plugins)) {
      if (!this.plugins.has(id)) {
        throw new PluginLoadError(`The config names plugin ${id} under "plugins", but no such plugin is loaded; known plugins: ${[...this.plugins.keys()].join(', ')}.`);
      }
    }
    await this.#probeComponents();
    // The stored runtime switches apply before any pool starts: a plugin an operator disabled never starts at boot.
    for (const o of overrides) {
      const p = this.plugins.get(o.pluginId);
      if (!p) {
        this.log?.warn({ plugin: o.pluginId }, 'an operator switched a plugin that is not installed here; ignored');
        continue;
      }
      p.override = o;
      if (!o.enabled && !p.configDisabled) this.#markDisabled(p, o);
    }
    await this.#startPools();
  }

  #check(def: PluginDefinition, source: string): void {
    const m = def.manifest;
    const name = `Plugin ${(m as { id?: string }).id ?? source}`;
    if (!validateManifest(m)) {
      const problems = formatAjvErrors(validateManifest.errors, 'manifest').map((e) => `${e.path} ${e.message}`);
      throw new PluginLoadError(`${name} (${source}) has an invalid manifest: ${problems.join('; ')}.`);
    }
    if (this.plugins.has(m.id)) {
      throw new PluginLoadError(`${name} (${source}) has the same id as ${this.plugins.get(m.id)!.source}; give one of them another id.`);
    }
    if (!semver.valid(m.version)) {
      throw new PluginLoadError(`${name} has version ${JSON.stringify(m.version)}, which is not semver (e.g. 1.0.0).`);
    }
    if (!semver.validRange(m.kernel) || !semver.satisfies(KERNEL_VERSION, m.kernel)) {
      throw new PluginLoadError(`${name} needs kernel ${m.kernel}, but this is kernel ${KERNEL_VERSION}; install a version of the plugin built for kernel ${KERNEL_VERSION}.`);
    }
    if (m.llm && !m.outbound) {
      throw new PluginLoadError(`${name} declares llm without outbound; its requests to the model endpoint go through the outbound URL policy, so declare outbound: true as well.`);
    }
    const contractActions = Object.keys(def.contract ?? {});
    const manifestActions = m.actions.map((a) => a.name);
    const missingInContract = manifestActions.filter((a) => !contractActions.includes(a));
    const extraInContract = contractActions.filter((a) => !manifestActions.includes(a));
    if (missingInContract.length || extraInContract.length) {
      throw new PluginLoadError(
        `${name}: manifest and contract disagree` +
          (missingInContract.length ? `; the contract lacks ${missingInContract.join(', ')}` : '') +
          (extraInContract.length ? `; the contract has ${extraInContract.join(', ')}, which the manifest does not declare` : '') +
          '. Make contract.ts have exactly one entry per manifest action.',
      );
    }
    for (const action of m.actions) {
      const c = def.contract[action.name]!;
      for (const part of ['input', 'result'] as const) {
        try {
          ajv.compile(c[part] as object);
        } catch (err) {
          throw new PluginLoadError(`${name}: the ${part} schema of ${action.name} does not compile: ${(err as Error).message}.`);
        }
      }
      if ((c.input as { type?: unknown }).type !== 'object') {
        throw new PluginLoadError(`${name}: the input schema of ${action.name} must be an object schema (Type.Object), since requests are JSON objects.`);
      }
      const props = (c.input as { properties?: Record<string, unknown> }).properties ?? {};
      if ('webhook' in props) throw new PluginLoadError(`${name}: the input of ${action.name} must not declare "webhook"; the kernel adds it to every job route.`);
      for (const f of action.files ?? []) {
        if (!(f.field.split('.')[0]! in props)) throw new PluginLoadError(`${name}: ${action.name} declares file field "${f.field}", which its input schema does not have.`);
      }
      for (const ps of action.pageSpecs ?? []) {
        if (!(ps.field in props)) throw new PluginLoadError(`${name}: ${action.name} declares page-spec field "${ps.field}", which its input schema does not have.`);
        if (!(action.files ?? []).some((f) => f.field === ps.file)) {
          throw new PluginLoadError(`${name}: ${action.name} checks page specs against "${ps.file}", which is not one of its file fields.`);
        }
      }
      if (m.kind === 'render-target' ? !action.target || action.route : !action.route || action.target) {
        throw new PluginLoadError(`${name}: ${action.name} must declare ${m.kind === 'render-target' ? 'a target (and no route)' : 'a route (and no target)'}, as a ${m.kind} plugin.`);
      }
      if (action.target && this.#targets.has(action.target)) {
        throw new PluginLoadError(`${name}: render target ${action.target} is already provided by plugin ${this.#targets.get(action.target)!.plugin.definition.manifest.id}.`);
      }
      const taken = action.route && this.#routes.get(action.route.path);
      if (taken && action.route) {
        throw new PluginLoadError(`${name}: route POST ${action.route.path} is already served by plugin ${taken.plugin.definition.manifest.id}; choose another path.`);
      }
      if (this.#actions.has(action.name)) {
        throw new PluginLoadError(`${name}: action ${action.name} is already provided by plugin ${this.#actions.get(action.name)!.plugin.definition.manifest.id}.`);
      }
    }
    for (const code of Object.keys(m.errors)) {
      if (code in KERNEL_JOB_ERRORS) throw new PluginLoadError(`${name}: error code ${code} is reserved by the kernel; rename it.`);
    }
    if (!def.worker) throw new PluginLoadError(`${name} names no worker module; set worker: new URL('./worker.js', import.meta.url).`);
  }

  async #probeComponents(): Promise<void> {
    const cache = new Map<string, Promise<boolean>>();
    for (const p of this.plugins.values()) {
      if (p.state === 'disabled') continue;
      const missing: string[] = [];
      for (const component of p.definition.manifest.requires) {
        const key = component.probe.join('\0');
        if (!cache.has(key)) cache.set(key, probe(component.probe));
        if (!(await cache.get(key))) {
          if (component.optional) p.missing.push(component.name);
          else missing.push(component.name);
        }
      }
      if (!missing.length && p.missing.length) p.reason = this.#optionalReason(p);
      if (missing.length) {
        p.state = 'unavailable';
        p.missing = missing;
        p.requiredMissing = missing;
        p.reason = this.#missingReason(p, missing);
      }
    }
  }

  /**
   * Starts every enabled plugin's pool at once (each check loads the worker module in a thread, which
   * adds up at boot). When one fails, the pools that did start are closed and the first failure in
   * plugin order is thrown, as a one-by-one start would have.
   */
  async #startPools(): Promise<void> {
    const enabled = [...this.plugins.values()].filter((p) => p.state === 'enabled');
    const outcomes = await Promise.allSettled(enabled.map((p) => this.#startPool(p)));
    const failed = outcomes.find((o): o is PromiseRejectedResult => o.status === 'rejected');
    if (!failed) return;
    await Promise.all(
      enabled.map(async (p) => {
        await p.pool?.close();
        await p.services?.close().catch(() => undefined);
        p.pool = null;
        p.services = null;
      }),
    );
    throw failed.reason;
  }

  async #startPool(p: LoadedPlugin): Promise<void> {
    {
      const m = p.definition.manifest;
      const limits: PoolLimits = { ...m.pool, ...(this.config.plugins[m.id]?.pool ?? {}) };
      const pool = PluginPool.forPlugin(p.definition, limits, this.threadBudget);
      const workerUrl = String(p.definition.worker);
      let exports: string[];
      try {
        exports = await pool.describe();
      } catch (err) {
        await pool.close();
        throw new PluginLoadError(`Plugin ${m.id}: its worker module ${workerUrl} fails to load: ${(err as Error).message}.`);
      }
      const absent = m.actions.filter((a) => !exports.includes(a.export));
      if (absent.length) {
        await pool.close();
        throw new PluginLoadError(
          `Plugin ${m.id}: the worker does not export ${absent.map((a) => `${a.export} (for ${a.name})`).join(', ')}; it exports ${exports.join(', ') || 'nothing'}. Export one function per manifest action.`,
        );
      }
      if (p.definition.provision) {
        const log = (level: 'info' | 'warn' | 'error', msg: string, fields: Record<string, unknown> = {}) => this.log?.[level]({ plugin: m.id, ...fields }, msg);
        try {
          pool.services = p.services = await p.definition.provision({ settings: p.settings, missing: [...p.missing], log });
        } catch (err) {
          await pool.close();
          throw new PluginLoadError(`Plugin ${m.id} could not be set up: ${(err as Error).message}`);
        }
      }
      p.pool = pool;
    }
  }

  /**
   * Applies an operator's override at once: disabling takes the plugin's routes and render targets away (they answer
   * 404 PLUGIN_DISABLED from now on) and closes its pool once the jobs on its threads finish; enabling starts its pool
   * and serves it again once the pool is up. A plugin the config disables stays disabled, and one missing a required
   * component becomes unavailable, whatever the override says. Throws when the pool cannot be started (the plugin
   * stays disabled).
   */
  applyOverride(o: PluginOverride): Promise<void> {
    return this.#switching.run(o.pluginId, async () => {
      const p = this.plugins.get(o.pluginId);
      if (!p) return;
      p.override = o;
      if (p.configDisabled) return;
      if (!o.enabled) {
        const { pool, services } = p;
        this.#markDisabled(p, o);
        // State first, then the pool: the runner checks the state right before it hands a job to the pool, so a job is
        // either on a thread before the close (and finishes) or fails PLUGIN_DISABLED. The switch does not wait for
        // the close: the jobs on the threads may take up to their deadline.
        p.pool = null;
        p.services = null;
        const closing = (async () => {
          await pool?.closeWhenIdle().catch((err: Error) => this.log?.warn({ plugin: o.pluginId, err }, 'closing the pool of a disabled plugin failed'));
          await services?.close().catch((err: Error) => this.log?.warn({ plugin: o.pluginId, err }, 'closing plugin services failed'));
        })();
        this.#closing.add(closing);
        void closing.finally(() => this.#closing.delete(closing));
        return;
      }
      if (p.requiredMissing.length) {
        p.state = 'unavailable';
        p.missing = p.requiredMissing;
        p.reason = this.#missingReason(p, p.requiredMissing);
        return;
      }
      if (p.state === 'enabled') return;
      await this.#startPool(p);
      p.state = 'enabled';
      p.reason = p.missing.length ? this.#optionalReason(p) : null;
    });
  }

  #markDisabled(p: LoadedPlugin, o: PluginOverride): void {
    p.state = 'disabled';
    // Every API client reads this in GET /plugins: it names no key (the operator routes show which one, `override`).
    p.reason = `disabled by an operator at ${o.at}${o.reason ? `: ${o.reason}` : ''}`;
  }

  /** Why an enabled plugin may still answer 503: optional components it lacks. */
  #optionalReason(p: LoadedPlugin): string {
    const how = p.definition.manifest.requires.filter((c) => p.missing.includes(c.name)).map((c) => `${c.name} (${c.install})`);
    return `optional system component${p.missing.length > 1 ? 's' : ''} missing: ${how.join(', ')}; requests that need ${p.missing.length > 1 ? 'them' : 'it'} answer 503`;
  }

  #missingReason(p: LoadedPlugin, missing: string[]): string {
    const how = p.definition.manifest.requires.filter((c) => missing.includes(c.name)).map((c) => `${c.name} (${c.install})`);
    return `missing system component${missing.length > 1 ? 's' : ''}: ${how.join(', ')}`;
  }

  /** The optional components a request needs that are not installed (empty when it can run). */
  missingFor(reg: RegisteredAction, params: Record<string, unknown>, files: Array<{ field: string; mimeType: string }>): string[] {
    const needed = reg.plugin.definition.componentsNeeded?.({ action: reg.action.name, params, files }) ?? [];
    return needed.filter((name) => reg.plugin.missing.includes(name));
  }

  byRoute(routePath: string): RegisteredAction | undefined {
    return this.#routes.get(routePath);
  }

  /** The render action producing `format` (`pdf`, `docx`, …), if a plugin provides it. */
  byTarget(format: string): RegisteredAction | undefined {
    return this.#targets.get(format);
  }

  byAction(name: string): RegisteredAction | undefined {
    return this.#actions.get(name);
  }

  actions(): RegisteredAction[] {
    return [...this.#actions.values()];
  }

  async close(): Promise<void> {
    await Promise.all([...this.plugins.values()].map((p) => p.pool?.close()));
    await Promise.all(this.#closing);
    await Promise.all([...this.plugins.values()].map((p) => p.services?.close().catch((err: Error) => this.log?.warn({ plugin: p.definition.manifest.id, err }, 'closing plugin services failed'))));
  }
}

/**
 * The pool of a plugin that serves. A request that found the plugin enabled may reach this after an operator disabled
 * it (its pool is gone): it answers as a request arriving then would, 404 PLUGIN_DISABLED.
 */
export function servingPool(reg: RegisteredAction): PluginPool {
  const { plugin } = reg;
  if (plugin.pool) return plugin.pool;
  const id = plugin.definition.manifest.id;
  if (plugin.state === 'unavailable') throw new HttpError('PLUGIN_UNAVAILABLE', `Plugin ${id} is ${plugin.reason}.`, undefined, { 'Retry-After': '3600' });
  throw new HttpError('PLUGIN_DISABLED', `Plugin ${id} was disabled by the operator.`);
}

function resolveExternal(spec: string, configDir: string): string {
  if (spec.startsWith('.') || path.isAbsolute(spec)) return pathToFileURL(path.resolve(configDir, spec)).href;
  return spec;
}

function probe(command: string[]): Promise<boolean> {
  return new Promise((resolve) => {
    execFile(command[0]!, command.slice(1), { timeout: 10_000 }, (err) => resolve(!err));
  });
}
