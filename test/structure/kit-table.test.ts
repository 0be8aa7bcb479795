// The docs' table of how the engine tier runs every catalogue entry (test/images/README.md, docs/testing.md) is
// the one test/real-engine/kit-table.ts prints from the kit's program table and the shipped catalogue; after a
// change to either, `node --import tsx test/real-engine/kit-table.ts --write` rewrites it.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { readConfig, REPO_ROOT } from '../../src/config.js';
import { BEGIN, END, kitTable, TABLE_FILES } from '../real-engine/kit-table.js';
import { serviceFilePath } from '../../src/model/layout.js';
import { Generator } from '../../src/pipeline/generate.js';
import { PROGRAM_CHECKS } from '../real-engine/program-checks.js';
import { REAL_PROGRAMS, realProgramFor, versionGap } from '../real-engine/programs.js';
import { shippedCatalogue } from '../real-engine/stack.js';

const table = kitTable(shippedCatalogue());

for (const file of TABLE_FILES) {
  test(`${file} carries the current kit table`, () => {
    const text = readFileSync(path.join(REPO_ROOT, file), 'utf8');
    const start = text.indexOf(BEGIN);
    assert.ok(start >= 0, `${file} has the table's markers`);
    assert.equal(text.slice(start, text.indexOf(END) + END.length), table, 'run: node --import tsx test/real-engine/kit-table.ts --write');
  });
}

test('every catalogue entry is in the table, and every real program serves at least one of them', () => {
  const catalogue = shippedCatalogue();
  const entries = [...catalogue.services.keys(), ...catalogue.proxies.keys(), ...catalogue.frameworks.keys()];
  for (const id of entries) assert.match(table, new RegExp(`^\\| ${id}( \\(|\\s\\|)`, 'm'), id);
  const images = new Set([...catalogue.services.values(), ...catalogue.proxies.values(), ...catalogue.frameworks.values()].map((p) => p.manifest.image));
  for (const program of REAL_PROGRAMS) assert.ok(program.images.some((i) => images.has(i)), `${program.dir} serves no catalogue image`);
});

test('the version gap names same, minor, major and other-major differences', () => {
  assert.equal(versionGap('2.11.2', '2.11.2'), 'none');
  assert.equal(versionGap('2.11.2', '2.11.4'), 'same major.minor (pin 2.11.4)');
  assert.equal(versionGap('2.0.21', '2.1.2'), 'same major (pin 2.1.2)');
  assert.equal(versionGap('2.53.3', '3.13.2'), 'other major (pin 3.13.2)');
  assert.equal(versionGap('the pin', '2026.5.7'), 'none (the pinned version)');
});

// Issue 34: every file a plugin renders for a service the tier runs as its real program is read by that program in
// a test. Files outside PROGRAM_CHECKS are proven by the unit tier against the real server; those tests are named.
const PROVEN_ELSEWHERE: Record<string, string> = {
  'create-databases.sh': 'test/engine/database-setup.test.ts',
};

test('every file rendered for a real program is read by that program in a test', () => {
  const catalogue = shippedCatalogue();
  const generator = new Generator(catalogue, readConfig({}).templatesDir, 4);
  const real = [...catalogue.services.values()].filter((s) => realProgramFor(s.manifest.image, { includeUnproven: true }));
  // a stack of each (with what it needs: a database consumer brings its server's setup script)
  const seen = new Map<string, string>();
  for (const service of real) {
    const bundle = generator.generate({ name: 'rendered-files', primaryFramework: 'openclaw', services: [service.id] }).files;
    for (const owner of real) {
      const prefix = `${path.dirname(serviceFilePath(owner.id, 'x'))}/`;
      for (const file of Object.keys(bundle).filter((f) => f.startsWith(prefix))) seen.set(file, owner.id);
    }
  }
  for (const [file, id] of seen) {
    const name = path.basename(file);
    const elsewhere = PROVEN_ELSEWHERE[name];
    if (elsewhere) {
      assert.ok(readFileSync(path.join(REPO_ROOT, elsewhere), 'utf8').includes(name), `${elsewhere} does not name ${name}`);
      continue;
    }
    const check = PROGRAM_CHECKS[id];
    assert.ok(check, `${id} renders ${file} but has no program check in test/real-engine/program-checks.ts`);
    assert.ok(check.proves.includes(name), `the program check of ${id} does not say it reads ${name}`);
  }
  assert.ok(seen.size >= 7, `only ${seen.size} rendered files found (${[...seen.keys()].join(', ')}): the walk is broken`);
});

// A kit mirrors its upstream image's VOLUME lines (its Dockerfile cites them), and a plugin running that image lists
// the same folders in imageVolumes, which the loader holds to its volumes (volume.image): a kit and a manifest that
// disagree mean one of them misreads upstream.
test('each kit declares the VOLUMEs that every plugin running its image lists in imageVolumes', () => {
  const catalogue = shippedCatalogue();
  const plugins = [...catalogue.services.values(), ...catalogue.proxies.values(), ...catalogue.frameworks.values()];
  for (const program of REAL_PROGRAMS) {
    const dockerfile = readFileSync(path.join(REPO_ROOT, 'test/images', program.dir, 'Dockerfile'), 'utf8');
    const declared = [...dockerfile.matchAll(/^VOLUME\s+(.+)$/gm)].flatMap((m) => m[1].trim().startsWith('[')
      ? (JSON.parse(m[1]) as string[]) : m[1].trim().split(/\s+/)).sort();
    for (const plugin of plugins.filter((p) => program.images.includes(p.manifest.image))) {
      assert.deepEqual([...(plugin.manifest.imageVolumes ?? [])].sort(), declared, `${plugin.file} imageVolumes against test/images/${program.dir}/Dockerfile`);
    }
  }
});
