// One POST route per plugin action, derived from the manifests; disabled and unavailable plugins answer for themselves.
import type { ActionCredits } from '../../sdk/plugin-api.js';
import { HttpError } from '../../contracts/errors.js';
import type { Kernel } from '../../kernel/kernel.js';
import type { RegisteredAction } from '../../kernel/plugin-registry.js';
import type { RouteContext, RouteDefinition } from '../context.js';
import { sendJson } from '../problem.js';
import { sendToolsJobCreated } from '../job-created.js';
import { API_PREFIX } from '../paths.js';
import { ToolsJobSchema } from '../../contracts/common.js';
import { jobRequestSchema, type JobRequest } from '../../kernel/job-service.js';

/** A disabled or unavailable plugin answers for itself, whatever the body says: checked before the body. */
function pluginReady(reg: RegisteredAction, endpoint: string): () => void {
  return () => {
    const { plugin } = reg;
    const id = plugin.definition.manifest.id;
    if (plugin.state === 'disabled') {
      throw new HttpError('PLUGIN_DISABLED', `${endpoint} is provided by plugin ${id}, which the operator disabled.`);
    }
    if (plugin.state === 'unavailable') {
      throw new HttpError('PLUGIN_UNAVAILABLE', `${endpoint} is unavailable: plugin ${id} is ${plugin.reason}.`, undefined, { 'Retry-After': '3600' });
    }
  };
}

/** The body matched the action's contract (the route's schema); `endpoint` names the route in the kernel's answers. */
function handler(reg: RegisteredAction, endpoint: string) {
  return async (ctx: RouteContext<Record<string, unknown>>): Promise<void> => {
    if (reg.plugin.definition.manifest.kind === 'importer') {
      // Importers answer in the request: no job, the result is the body.
      sendJson(ctx.res, 200, await ctx.services.imports.run(ctx.principal!.orgId, reg, ctx.body, endpoint));
      return;
    }
    sendToolsJobCreated(ctx, await ctx.kernel.jobs.create(ctx.principal!.orgId, reg, ctx.body as JobRequest, endpoint));
  };
}

export function toolRoutes(kernel: Kernel): RouteDefinition[] {
  return kernel.registry.actions().filter((reg) => reg.action.route).map((reg) => ({
    method: 'POST' as const,
    path: `${API_PREFIX}${reg.action.route!.path}`,
    auth: 'key' as const,
    idempotent: true,
    // The schema is the route's doc.body: the plugin's input (plus the kernel's `webhook` for job routes), compiled by the app at registration.
    body: { mismatch: `The request body does not match the ${reg.action.name} contract.` },
    preValidation: pluginReady(reg, reg.action.route!.path),
    handler: handler(reg, reg.action.route!.path),
    doc: reg.plugin.definition.manifest.kind === 'importer' ? importerDoc(reg) : {
      tag: 'Tools',
      summary: reg.action.summary,
      description: `${reg.action.description ? reg.action.description + '\n\n' : ''}Creates a \`${reg.action.name}\` tools job; costs ${describeCost(reg.action.credits)}, charged on completion.`,
      body: jobRequestSchema(reg.plugin.definition.contract[reg.action.name]!.input),
      responses: { 202: ToolsJobSchema },
      hidden: () => reg.plugin.state === 'disabled',
    },
  }));
}

/** An importer's route: the plugin's input as the body (no webhook: nothing is left to notify), its result as the 200 answer. */
function importerDoc(reg: RegisteredAction): RouteDefinition['doc'] {
  const contract = reg.plugin.definition.contract[reg.action.name]!;
  return {
    tag: 'Import',
    summary: reg.action.summary,
    description: `${reg.action.description ? reg.action.description + '\n\n' : ''}Synchronous (no job): answers 200 with the result; costs ${reg.action.credits.perRequest} credit(s), charged only on success. A file that cannot be imported answers 422 IMPORT_FAILED.`,
    body: contract.input,
    responses: { 200: contract.result },
    hidden: () => reg.plugin.state === 'disabled',
  };
}

/** The cost line of a tools route's description: per request, plus per processed page for page-metered actions. */
function describeCost(credits: ActionCredits): string {
  const per = credits.perPage;
  if (per === undefined) return `${credits.perRequest} credit(s)`;
  const perPage = typeof per === 'number' ? `${per}` : Object.entries(per.values).map(([v, n]) => `${n} with ${per.field} \`${v}\``).join(', ');
  return `${credits.perRequest ? `${credits.perRequest} credit(s) plus ` : ''}credits per processed page (${perPage})`;
}
