// `npm run lint:plugins [pluginsDir catalogueDir]`: load the catalogue exactly as the server does and
// print every problem. Exit 1 when any is an error.
import { readConfig } from '../config.js';
import { loadCatalogue } from '../catalogue/load.js';
import { formatProblem } from '../catalogue/problems.js';

const config = readConfig();
const [pluginsDir = config.pluginsDir, catalogueDir = config.catalogueDir] = process.argv.slice(2);
const result = loadCatalogue({ plugins: pluginsDir, catalogue: catalogueDir });
for (const p of [...result.errors, ...result.warnings]) console.log(formatProblem(p));
const c = result.catalogue;
if (c) {
  console.log(`ok: ${c.services.size} services, ${c.frameworks.size} frameworks, ${c.proxies.size} proxies, ${c.skillPacks.size} skill packs, ${c.presets.size} presets, ${c.categories.size} categories; ${result.warnings.length} warning(s); loaded in ${result.loadMs.toFixed(0)} ms`);
} else {
  console.log(`${result.errors.length} error(s), ${result.warnings.length} warning(s): the service would refuse to start`);
  process.exitCode = 1;
}
