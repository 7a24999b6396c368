// Liveness, readiness, the plugin listing and the OpenAPI document.
import { Type } from '@sinclair/typebox';
import { KERNEL_VERSION } from '../../sdk/plugin-api.js';
import type { Kernel } from '../../kernel/kernel.js';
import type { LoadedPlugin } from '../../kernel/plugin-registry.js';
import { buildOpenApi } from '../openapi.js';
import type { RouteContext, RouteDefinition } from '../context.js';
import { sendJson } from '../problem.js';
import { API_PREFIX } from '../paths.js';

/** One plugin as the listing shows it. */
export const PluginViewSchema = Type.Object({
  id: Type.String(),
  version: Type.String(),
  kind: Type.String(),
  builtin: Type.Boolean(),
  state: Type.Union([Type.Literal('enabled'), Type.Literal('disabled'), Type.Literal('unavailable')]),
  reason: Type.Union([Type.String(), Type.Null()]),
  missing: Type.Array(Type.String()),
  actions: Type.Array(Type.Object({ name: Type.String(), route: Type.String(), target: Type.Optional(Type.String({ description: 'Output format of a render target (POST /render picks it by document.type).' })), credits: Type.Number() })),
});

export const PluginListingSchema = Type.Object({ items: Type.Array(PluginViewSchema) });

export function pluginView(p: LoadedPlugin) {
  const m = p.definition.manifest;
  return {
    id: m.id,
    version: m.version,
    kind: m.kind,
    builtin: p.builtin,
    state: p.state,
    reason: p.reason,
    missing: p.missing,
    actions: m.actions.map((a) => ({ name: a.name, route: a.route ? `${API_PREFIX}${a.route.path}` : `${API_PREFIX}/render`, ...(a.target ? { target: a.target } : {}), credits: a.credits.perRequest, ...(a.credits.perPage !== undefined ? { creditsPerPage: a.credits.perPage } : {}) })),
  };
}

export function systemRoutes(routes: () => RouteDefinition[], isShuttingDown: () => boolean): RouteDefinition[] {
  return [
    {
      method: 'GET',
      path: '/healthz',
      auth: 'none',
      handler: async (ctx) => sendJson(ctx.res, 200, { status: 'ok' }),
      doc: { tag: 'System', summary: 'Liveness: the process is up', responses: { 200: Type.Object({ status: Type.Literal('ok') }) } },
    },
    {
      method: 'GET',
      path: '/readyz',
      auth: 'none',
      handler: async (ctx: RouteContext) => readiness(ctx.kernel, ctx, isShuttingDown()),
      doc: { tag: 'System', summary: 'Readiness: store and pools ready, availability of each plugin', responses: { 200: Type.Object({}, { additionalProperties: true }), 503: Type.Object({}, { additionalProperties: true }) } },
    },
    {
      method: 'GET',
      path: `${API_PREFIX}/plugins`,
      auth: 'key',
      operatorMayCall: true,
      handler: async (ctx) => sendJson(ctx.res, 200, { items: [...ctx.kernel.registry.plugins.values()].map(pluginView) }),
      doc: { tag: 'System', summary: 'Installed plugins and their state (enabled, disabled, unavailable and why)', responses: { 200: PluginListingSchema } },
    },
    {
      method: 'GET',
      path: `${API_PREFIX}/openapi.json`,
      auth: 'none',
      handler: async (ctx) => sendJson(ctx.res, 200, buildOpenApi(routes(), { version: KERNEL_VERSION, serverUrl: ctx.kernel.config.publicUrl })),
      doc: { tag: 'System', summary: 'This OpenAPI 3.0 document', responses: { 200: Type.Object({}, { additionalProperties: true }) } },
    },
  ];
}

async function readiness(kernel: Kernel, ctx: RouteContext, shuttingDown: boolean): Promise<void> {
  let storeOk = true;
  try {
    await kernel.store.listOrganizations();
  } catch {
    storeOk = false;
  }
  const plugins = [...kernel.registry.plugins.values()].map((p) => ({ id: p.definition.manifest.id, state: p.state, reason: p.reason, missing: p.missing }));
  const ready = storeOk && !shuttingDown;
  sendJson(ctx.res, ready ? 200 : 503, {
    status: ready ? 'ready' : 'not_ready',
    store: storeOk ? 'ok' : 'failing',
    shuttingDown,
    runningJobs: kernel.runner.runningCount,
    plugins,
  });
}
