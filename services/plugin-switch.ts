// Operators switch plugins off and on at runtime (docs/operators.md): the switch is stored with an audit entry, applied
// here at once, and on a database shared by several nodes picked up by every other node within SYNC_MS.
import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { inject, injectable } from 'tsyringe';
import { TOKENS } from '../kernel/tokens.js';
import { HttpError } from '../contracts/errors.js';
import { KeyedMutex } from '../kernel/keyed-mutex.js';
import { JobRunner } from '../kernel/job-runner.js';
import { decodeCursor, type PageRequest } from './document-service.js';
import { paged } from './webhook-endpoints.js';
import type { QuireConfig } from '../kernel/config.js';
import type { Clock } from '../kernel/clock.js';
import type { Logger } from '../kernel/logger.js';
import type { Store } from '../kernel/store/store.js';
import type { LoadedPlugin, PluginRegistry } from '../kernel/plugin-registry.js';
import type { OperatorAuditEntry, PluginOverride } from '../kernel/model.js';

/**
 * How often each node of a shared database reads the stored overrides. A poll rather than LISTEN/NOTIFY: the table
 * holds one small row per plugin, so a read every 2 s costs next to nothing, needs no connection of its own, and
 * cannot miss a change the way a notice sent while a listener reconnects can.
 */
export const SYNC_MS = 2000;

/** The operator key acting: its id and its name, as the audit log records them. */
export interface OperatorIdentity {
  keyId: string;
  name: string;
}

@injectable()
export class PluginSwitch {
  /** One switch of a plugin at a time on this node (a request and the periodic sync alike). */
  readonly #mutex = new KeyedMutex();
  #timer: NodeJS.Timeout | undefined;
  #syncing: Promise<void> | undefined;

  constructor(
    @inject(TOKENS.Config) private readonly config: QuireConfig,
    @inject(TOKENS.Clock) private readonly clock: Clock,
    @inject(TOKENS.Logger) private readonly log: Logger,
    @inject(TOKENS.Store) private readonly store: Store,
    @inject(TOKENS.Registry) private readonly registry: PluginRegistry,
    @inject(JobRunner) private readonly runner: JobRunner,
  ) {}

  /** On PostgreSQL, starts reading the other nodes' switches; the embedded store has one server, which made them all. */
  start(): void {
    if (!this.config.databaseUrl || this.#timer) return;
    this.#timer = setInterval(() => {
      this.#syncing ??= this.sync()
        .catch((err: Error) => this.log.warn({ err }, 'reading the plugin overrides failed; trying again at the next read'))
        .finally(() => (this.#syncing = undefined));
    }, SYNC_MS);
    this.#timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#syncing;
  }

  /** Applies every stored override this node has not applied yet (another node's switch). */
  async sync(): Promise<void> {
    for (const stored of await this.store.listPluginOverrides()) {
      const p = this.registry.plugins.get(stored.pluginId);
      if (!p || sameOverride(p.override, stored)) continue;
      await this.#mutex.run(stored.pluginId, async () => {
        if (sameOverride(p.override, stored)) return;
        try {
          await this.#apply(stored);
          this.log.info({ plugin: stored.pluginId, enabled: stored.enabled, byKeyId: stored.byKeyId }, 'applied a plugin switch another node stored');
        } catch (err) {
          this.log.error({ err, plugin: stored.pluginId }, 'a plugin switch another node stored could not be applied here');
        }
      });
    }
  }

  plugin(pluginId: string): LoadedPlugin {
    const p = this.registry.plugins.get(pluginId);
    if (!p) throw new HttpError('NOT_FOUND', `No plugin ${pluginId} is installed; GET /operator/plugins lists them.`);
    return p;
  }

  /** Disables the plugin; a plugin already disabled is left as it is (nothing stored, no audit entry). */
  disable(pluginId: string, by: OperatorIdentity, reason: string | null): Promise<LoadedPlugin> {
    const p = this.plugin(pluginId);
    return this.#mutex.run(pluginId, async () => {
      if (p.state !== 'disabled') await this.#switch(p, false, by, reason);
      return p;
    });
  }

  /**
   * Enables the plugin; one already enabled is left as it is. Refused (409) while the config file disables it or a
   * system component it requires is missing: the switch could not make it serve.
   */
  enable(pluginId: string, by: OperatorIdentity, reason: string | null): Promise<LoadedPlugin> {
    const p = this.plugin(pluginId);
    return this.#mutex.run(pluginId, async () => {
      if (p.configDisabled) {
        throw new HttpError('CONFLICT', `Plugin ${pluginId} is disabled in the config file (plugins.${pluginId}.enabled = false), which wins over the operator API; remove that setting and restart.`);
      }
      if (p.requiredMissing.length) {
        const requires = p.definition.manifest.requires.filter((c) => p.requiredMissing.includes(c.name));
        throw new HttpError(
          'CONFLICT',
          `Plugin ${pluginId} cannot be enabled: it needs ${requires.map((c) => c.name).join(', ')}, which ${requires.length > 1 ? 'are' : 'is'} not installed on this server; install ${requires.length > 1 ? 'them' : 'it'} and restart.`,
          requires.map((c) => ({ path: `requires.${c.name}`, message: `${c.name} is missing: ${c.install}`, code: 'COMPONENT_MISSING' })),
        );
      }
      if (p.state !== 'enabled') await this.#switch(p, true, by, reason);
      return p;
    });
  }

  /** The audit log, newest first, paged like the other lists. */
  async audit(page: PageRequest): Promise<{ items: OperatorAuditEntry[]; nextCursor: string | null }> {
    const rows = await this.store.listOperatorAudit(page.limit + 1, page.cursor === null ? undefined : decodeCursor(page.cursor));
    return paged(rows, page.limit, (e) => e);
  }

  /** Stored first (the switch and its audit entry in one write), then applied: a restart applies what was stored. */
  async #switch(p: LoadedPlugin, enabled: boolean, by: OperatorIdentity, reason: string | null): Promise<void> {
    const at = this.clock.now().toISOString();
    const pluginId = p.definition.manifest.id;
    const override: PluginOverride = { pluginId, enabled, reason, byKeyId: by.keyId, at };
    await this.store.setPluginOverride(override, { id: randomUUID(), action: enabled ? 'plugin.enable' : 'plugin.disable', pluginId, reason, keyId: by.keyId, keyName: by.name, createdAt: at });
    await this.#apply(override);
    this.log.info({ plugin: pluginId, enabled, keyId: by.keyId, reason }, enabled ? 'an operator enabled a plugin' : 'an operator disabled a plugin');
  }

  async #apply(override: PluginOverride): Promise<void> {
    await this.registry.applyOverride(override);
    // Jobs waiting here for a plugin just disabled fail now (PLUGIN_DISABLED); for one enabled, they start.
    this.runner.pluginSwitched(override.pluginId);
  }
}

function sameOverride(a: PluginOverride | null, b: PluginOverride): boolean {
  return !!a && a.enabled === b.enabled && a.at === b.at && a.byKeyId === b.byKeyId;
}
