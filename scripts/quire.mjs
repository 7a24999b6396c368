#!/usr/bin/env node
// `npx quire …` in this checkout (the root package.json's bin): the CLI of clients/typescript as `npm run setup` built it.
import '../dist/clients/typescript/src/cli/main.js';
