// The plugin SDK's public face (`@quire/plugin-sdk`): what a plugin's manifest and worker import from Quire,
// built-ins and third parties alike. Worker threads load it, so it stays light: no TypeBox and no network code
// here (TypeBox alone costs a new thread hundreds of milliseconds); those are the `schema` and `outbound` entries.
export * from './plugin-api.js';
export * from './page-spec.js';
export type { Static, TSchema } from '@sinclair/typebox';
