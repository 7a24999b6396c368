// The SDK's `outbound` entry (`@quire/plugin-sdk/outbound`): for plugins whose manifest declares `outbound`, the URL
// policy every server-side request goes through, and the HTTP client that obeys it.
export * from './url-policy.js';
export * from './outbound-http.js';
