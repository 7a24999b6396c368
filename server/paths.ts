// The one prefix every public API path carries.
export const API_PREFIX = '/api/v1/dev';
