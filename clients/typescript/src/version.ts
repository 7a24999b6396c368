// The package's version (clients/typescript/package.json's, checked by test/architecture/client-package.test.ts).
export const CLIENT_VERSION = '0.1.0';
