// Issue 35: a skill for an optional service ships only into stacks that hold that service (skillServices of the
// pack), through the generated bundle: the skill files, the README's pack list and the framework's skill folder.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { readConfig } from '../../src/config.js';
import { Generator } from '../../src/pipeline/generate.js';
import { loadCatalogueOrThrow } from '../../src/catalogue/load.js';
import { service, writeCatalogue } from '../support/fixture.js';
import { shippedCatalogue } from '../support/server.js';

const generator = new Generator(shippedCatalogue(), readConfig({}).templatesDir, 20);

describe('skills for optional services', () => {
  test('hybrid-search without OpenSearch: no OpenSearch skill; with it, the skill is there', () => {
    const without = generator.generate({ name: 'hs-es', services: ['elasticsearch'], skills: ['hybrid-search'] }).files;
    const names = (files: Record<string, string>) => Object.keys(files).filter((f) => /skills\/hybrid-search\/[^/]+\/SKILL\.md$/.test(f)).map((f) => f.split('/').at(-2)).sort();
    assert.deepEqual([...new Set(names(without))], ['hybrid-query', 'index-with-vectors']);
    assert.ok(!Object.values(without).some((text) => /opensearch-hybrid/.test(text)), 'no file names the left-out skill');
    const withOs = generator.generate({ name: 'hs-os', services: ['elasticsearch', 'opensearch'], skills: ['hybrid-search'] }).files;
    assert.deepEqual([...new Set(names(withOs))], ['hybrid-query', 'index-with-vectors', 'opensearch-hybrid']);
    // the framework's reference file lists the pack's skills of each stack: its skills section is kept while a
    // stack's packs stay the same (plugin-files.ts), and a pack of fewer skills is another pack
    const reference = (files: Record<string, string>) => Object.entries(files).find(([f]) => /^configs\/[^/]+\/config\.yaml$/.test(f))![1];
    assert.match(reference(withOs), /opensearch-hybrid/);
    const again = generator.generate({ name: 'hs-es-again', services: ['elasticsearch'], skills: ['hybrid-search'] }).files;
    assert.ok(!Object.values(again).some((text) => /opensearch-hybrid/.test(text)), 'after a stack with the skill, no file of a stack without it names it');
    assert.equal(reference(again), reference(without).replaceAll('hs-es', 'hs-es-again'));
  });

  test('the loader refuses a skillServices entry for an unknown skill or a service the pack does not list as optional', () => {
    const dir = writeCatalogue({
      'plugins/services/gamma/service.yaml': service('gamma', ''),
      'plugins/skills/pack/skill-pack.yaml': 'name: Pack\ndescription: A pack of skills for the tests of skillServices.\nrequiredServices: []\noptionalServices: [alpha]\nskillServices: {nope: [alpha], one: [gamma]}\nskills: [one]\n',
      'plugins/skills/pack/skills/one.md': '---\nname: one\ndescription: One skill that needs the optional alpha service.\n---\n\n# One\n\nUse alpha.\n',
    });
    assert.throws(() => loadCatalogueOrThrow(dir), (e: Error) => /skillServices names skill "nope"/.test(e.message) && /skill "one" needs "gamma": list it in optionalServices/.test(e.message));
  });
});
