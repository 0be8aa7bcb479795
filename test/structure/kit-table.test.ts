// The docs' table of how the engine tier runs every catalogue entry (test/images/README.md, docs/testing.md) is
// the one test/real-engine/kit-table.ts prints from the kit's program table and the shipped catalogue; after a
// change to either, `node --import tsx test/real-engine/kit-table.ts --write` rewrites it.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { REPO_ROOT } from '../../src/config.js';
import { BEGIN, END, kitTable, TABLE_FILES } from '../real-engine/kit-table.js';
import { REAL_PROGRAMS, versionGap } from '../real-engine/programs.js';
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
