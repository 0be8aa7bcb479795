import { readConfig } from '/work/main/src/config.js';
import { Generator } from '/work/main/src/pipeline/generate.js';
import { largeRequest, newSelections } from '/work/main/bench/requests.js';
import { shippedCatalogue } from '/work/main/test/support/server.js';
const catalogue = shippedCatalogue();
const base = largeRequest(catalogue);
const g = new Generator(catalogue, readConfig({}).templatesDir, 20);
const out = g.generate(newSelections(catalogue, base, 2)[1]);
console.log(Object.entries(out.files).map(([f, c]) => [f, (c as string).length] as const).sort((a, b) => b[1] - a[1]).slice(0, 12).map(([f, n]) => `${n} ${f}`).join('\n'));
