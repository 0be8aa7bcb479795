// The one start-up check on STACK_PLUGINS_DIR before the catalogue loads: a folder that is missing or
// holds no plugin at all gives one line that says so, instead of an error per preset and reference.
// The common cause is `docker run -v "$PWD/my-plugins:/app/plugins:ro"` with a folder that did not exist:
// Docker creates it empty and mounts it over the shipped plugins.
import { fs } from './node-builtins.js';
import path from 'node:path';
import { FOLDER_KINDS } from './catalogue/read.js';

const SEED = 'docker run --rm --entrypoint tar stackwright -C /app/plugins -c . | tar -x -C my-plugins';

/** What is wrong with the plugins folder, or undefined when it holds at least one plugin folder. */
export function pluginsFolderProblem(dir: string): string | undefined {
  if (!fs.existsSync(dir)) {
    return `the plugins folder ${dir} does not exist: set STACK_PLUGINS_DIR to a folder holding ${kinds()}, or copy the shipped plugins/ there`;
  }
  const hasPlugin = FOLDER_KINDS.some(({ folder }) => {
    try {
      return fs.readdirSync(path.join(dir, folder), { withFileTypes: true }).some((e) => e.isDirectory() && !e.name.startsWith('.'));
    } catch {
      return false;
    }
  });
  if (hasPlugin) return undefined;
  return `the plugins folder ${dir} is empty (no plugin folder under ${kinds()}). A bind mount of a folder that did not exist yet is empty: fill it with the shipped plugins first (${SEED}), then add your own`;
}

function kinds(): string {
  return FOLDER_KINDS.map(({ folder }) => `${folder}/`).join(', ');
}
