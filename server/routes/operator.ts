// The operator API (docs/operators.md): every plugin with its state and why, switched off and on at runtime, and the
// audit log of the switches. Operator keys only (admin CLI `key create --operator`).
import { Type, type Static } from '@sinclair/typebox';
import type { LoadedPlugin } from '../../kernel/plugin-registry.js';
import type { RouteContext, RouteDefinition } from '../context.js';
import type { Kernel } from '../../kernel/kernel.js';
import { sendJson } from '../problem.js';
import { API_PREFIX } from '../paths.js';
import { pageOf } from './documents.js';
import { PluginViewSchema, pluginView } from './system.js';

const operator = `${API_PREFIX}/operator`;
const onePlugin = `${operator}/plugins/:pluginId`;

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);

const OverrideSchema = Type.Object({
  enabled: Type.Boolean(),
  reason: Nullable(Type.String()),
  byKeyId: Type.String(),
  at: Type.String({ format: 'date-time' }),
});

export const OperatorPluginSchema = Type.Composite([
  PluginViewSchema,
  Type.Object({
    description: Type.String(),
    configDisabled: Type.Boolean({ description: 'plugins.<id>.enabled = false in the config file: it wins over the operator API.' }),
    override: Type.Union([OverrideSchema, Type.Null()], { description: 'The last runtime switch stored for the plugin, or null.' }),
    pool: Type.Union(
      [
        Type.Object({
          threads: Type.Integer({ description: 'Most worker threads the pool runs at once.' }),
          queue: Type.Integer({ description: 'Jobs of the plugin this server holds, waiting or running.' }),
          recycled: Type.Integer({ description: 'Threads replaced after recycleAfter tasks since the pool started.' }),
        }),
        Type.Null(),
      ],
      { description: 'This server\'s pool of the plugin; null while the plugin is not enabled.' },
    ),
  }),
]);

const SwitchBodySchema = Type.Object({ reason: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })) }, { additionalProperties: false });
type SwitchBody = Static<typeof SwitchBodySchema>;

const AuditEntrySchema = Type.Object({
  id: Type.String(),
  action: Type.Union([Type.Literal('plugin.disable'), Type.Literal('plugin.enable')]),
  pluginId: Type.String(),
  reason: Nullable(Type.String()),
  keyId: Type.String(),
  keyName: Type.String(),
  createdAt: Type.String({ format: 'date-time' }),
});

function operatorPluginView(kernel: Kernel, p: LoadedPlugin): Static<typeof OperatorPluginSchema> {
  const id = p.definition.manifest.id;
  const { override } = p;
  const view = pluginView(p);
  // Operators see which key disabled it; the public listing's reason does not name keys.
  const byOperator = p.state === 'disabled' && !p.configDisabled && override && !override.enabled;
  return {
    ...view,
    reason: byOperator ? `disabled by operator key ${override.byKeyId} at ${override.at}${override.reason ? `: ${override.reason}` : ''}` : view.reason,
    description: p.definition.manifest.description,
    configDisabled: p.configDisabled,
    override: override && { enabled: override.enabled, reason: override.reason, byKeyId: override.byKeyId, at: override.at },
    pool: p.pool && { threads: p.pool.limits.maxThreads, queue: kernel.runner.backlog(id), recycled: p.pool.recycled },
  };
}

const LIMIT_QUERY = { name: 'limit', description: 'Items per page, 1 to 200 (default 50).', schema: Type.Integer({ minimum: 1, maximum: 200 }) };
const CURSOR_QUERY = { name: 'cursor', description: 'The `nextCursor` of the previous page.', schema: Type.String() };

function switchRoute(action: 'disable' | 'enable'): RouteDefinition<SwitchBody> {
  const disable = action === 'disable';
  return {
    method: 'POST',
    path: `${onePlugin}/${action}`,
    auth: 'operator',
    body: { mismatch: `The request body does not match POST /operator/plugins/{pluginId}/${action}.`, limit: 4096, optional: true },
    handler: async (ctx) => {
      const by = ctx.principal!.operator!;
      const plugins = ctx.services.plugins;
      const reason = ctx.body.reason ?? null;
      const p = disable ? await plugins.disable(ctx.params.pluginId!, by, reason) : await plugins.enable(ctx.params.pluginId!, by, reason);
      sendJson(ctx.res, 200, operatorPluginView(ctx.kernel, p));
    },
    doc: {
      tag: 'Operator',
      summary: disable ? 'Disable a plugin at runtime (operator key)' : 'Enable a plugin at runtime (operator key)',
      description: disable
        ? 'Its routes and render targets answer 404 PLUGIN_DISABLED at once and leave the OpenAPI document; jobs already on its threads finish, jobs still waiting fail with PLUGIN_DISABLED. Stored: a restart keeps it, and every node of a shared database applies it within seconds. A plugin already disabled is left as it is.'
        : 'Starts its pool and serves it again. 409 CONFLICT when the config file disables it or a system component it requires is missing (`errors` names each). A plugin already enabled is left as it is.',
      body: SwitchBodySchema,
      responses: { 200: OperatorPluginSchema },
    },
  };
}

export function operatorRoutes(): RouteDefinition[] {
  return [
    {
      method: 'GET',
      path: `${operator}/plugins`,
      auth: 'operator',
      handler: async (ctx: RouteContext) => sendJson(ctx.res, 200, { items: [...ctx.kernel.registry.plugins.values()].map((p) => operatorPluginView(ctx.kernel, p)) }),
      doc: { tag: 'Operator', summary: 'Every plugin with its state and why, its switch and its pool (operator key)', responses: { 200: Type.Object({ items: Type.Array(OperatorPluginSchema) }) } },
    },
    {
      method: 'GET',
      path: onePlugin,
      auth: 'operator',
      handler: async (ctx: RouteContext) => sendJson(ctx.res, 200, operatorPluginView(ctx.kernel, ctx.services.plugins.plugin(ctx.params.pluginId!))),
      doc: { tag: 'Operator', summary: 'One plugin with its state and why, its switch and its pool (operator key)', responses: { 200: OperatorPluginSchema } },
    },
    switchRoute('disable') as RouteDefinition,
    switchRoute('enable') as RouteDefinition,
    {
      method: 'GET',
      path: `${operator}/audit`,
      auth: 'operator',
      handler: async (ctx: RouteContext) => sendJson(ctx.res, 200, await ctx.services.plugins.audit(pageOf(ctx))),
      doc: {
        tag: 'Operator',
        summary: 'The audit log of plugin switches, newest first (operator key)',
        query: [LIMIT_QUERY, CURSOR_QUERY],
        responses: { 200: Type.Object({ items: Type.Array(AuditEntrySchema), nextCursor: Nullable(Type.String()) }) },
      },
    },
  ];
}
