// The plugin SDK's public face (`@quire/plugin-sdk`): everything a plugin imports from Quire, built-ins and third parties alike.
export * from './plugin-api.js';
export { PluginManifestSchema } from '../contracts/plugin-manifest.js';
// TypeBox comes with the SDK, so a plugin's contract needs no dependency of its own (and uses the SDK's copy).
export { Type, type Static, type TSchema } from '@sinclair/typebox';
// For plugins whose manifest declares `outbound`: every request goes through the URL policy.
export * from './url-policy.js';
export * from './outbound-http.js';
export * from './page-spec.js';
