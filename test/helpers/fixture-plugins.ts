// Paths of the compiled fixture plugins, for QUIRE_CONFIG externalPlugins.
import path from 'node:path';
import { ROOT } from './quire-server.js';

export function fixturePlugin(name: string): string {
  return path.join(ROOT, 'dist/test/fixtures/plugins', name, 'manifest.js');
}
