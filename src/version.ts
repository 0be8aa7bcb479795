// The service's release version, from package.json (one read, at import).
import { fs } from './node-builtins.js';
import path from 'node:path';
import { REPO_ROOT } from './config.js';

export const STACKWRIGHT_VERSION = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')).version as string;
