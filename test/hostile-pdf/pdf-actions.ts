// Every built-in plugin action that accepts a PDF upload, read from the manifests so a new PDF plugin meets the hostile cases without a test edit.
import type { ActionDeclaration, PluginDefinition, PluginKind } from '../../sdk/index.js';
import { BUILTIN_BASE, BUILTIN_PLUGINS } from '../../plugins/builtin.js';
import { ACTION_BODIES, type BodyOf } from './action-bodies.js';

export interface PdfAction {
  /** e.g. `pdf.merge`. */
  name: string;
  pluginId: string;
  kind: PluginKind;
  plugin: PluginDefinition;
  action: ActionDeclaration;
  /** POST path under the API prefix, e.g. `/api/v1/dev/tools/pdf/merge`. */
  path: string;
  body: BodyOf;
  /** How the worker names the hostile input in its messages: `fileId`, or `fileIds[1]` for a list (the body puts it second). */
  label: string;
  /** The error codes the plugin declares. */
  declared: Set<string>;
}

const API_PREFIX = '/api/v1/dev';

/** The PDF actions of the built-in plugins, in manifest order; throws when one has no body in action-bodies.ts. */
export async function pdfActions(): Promise<PdfAction[]> {
  const found: PdfAction[] = [];
  for (const spec of BUILTIN_PLUGINS) {
    const plugin = ((await import(new URL(spec, BUILTIN_BASE).href)) as { default: PluginDefinition }).default;
    for (const action of plugin.manifest.actions) {
      const pdfFile = action.files?.find((f) => f.accept.includes('application/pdf'));
      if (!pdfFile || !action.route) continue;
      const body = ACTION_BODIES[action.name];
      if (!body) {
        throw new Error(`${action.name} (${plugin.manifest.id}) accepts application/pdf in ${pdfFile.field} but test/hostile-pdf/action-bodies.ts has no body for it: add one so the hostile PDF cases run against it.`);
      }
      const list = Array.isArray(body('x', 'y')[pdfFile.field]);
      found.push({
        name: action.name,
        pluginId: plugin.manifest.id,
        kind: plugin.manifest.kind,
        plugin,
        action,
        path: API_PREFIX + action.route.path,
        body,
        label: list ? `${pdfFile.field}[1]` : pdfFile.field,
        declared: new Set(Object.keys(plugin.manifest.errors ?? {})),
      });
    }
  }
  return found;
}
