// The SDK's `schema` entry (`@quire/plugin-sdk/schema`): TypeBox as the SDK ships it, for a plugin's contract
// (so it needs no dependency of its own), and the manifest's own schema, the one the kernel checks manifests against.
export { Type, type Static, type TSchema } from '@sinclair/typebox';
export { PluginManifestSchema } from '../contracts/plugin-manifest.js';
