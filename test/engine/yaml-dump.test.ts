// emit/yaml-dump.ts gives js-yaml's dump byte for byte (issue 36): on every compose document (each
// block, and the document whole) for every preset in containers and on bare metal behind each proxy, and
// on values chosen to take every branch of js-yaml's scalar styling and layout, in both styles (the emitters',
// and the framework configs' with every string quoted); and what it writes reads back as the same object; and
// on every Swarm stack document (stack.yml's body); and each written a level deeper (dumpYamlNested). (The Kubernetes objects go through the same function;
// test/deploy covers their files, and render-caches.test.ts every target's bundle.)
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import * as yaml from 'js-yaml';
import { buildModel } from '../../src/model/build-model.js';
import { resolve } from '../../src/model/resolve.js';
import { composeDocument } from '../../src/emit/compose/compose.js';
import { DUMP_OPTIONS, QUOTED_DUMP_OPTIONS, dumpQuotedListKept, dumpQuotedYaml, dumpQuotedYamlKept, dumpYaml, dumpYamlNested } from '../../src/emit/yaml-dump.js';
import { swarmDocument } from '../../src/emit/swarm/stack-file.js';
import { shippedCatalogue } from '../support/server.js';
import { deepFreeze } from '../../src/freeze.js';

const catalogue = shippedCatalogue();

/** The two styles: the emitters' documents, and the framework configs' (every string double-quoted). */
const STYLES = [
  { name: 'emitted', dump: dumpYaml, options: DUMP_OPTIONS },
  { name: 'every string quoted', dump: dumpQuotedYaml, options: QUOTED_DUMP_OPTIONS },
] as const;

function assertDumpsAlikeIn(value: unknown, what: string, style: (typeof STYLES)[number] = STYLES[0]): void {
  const expected = yaml.dump(value, style.options);
  // twice: the first asks js-yaml for each scalar, the second uses what it kept
  assert.equal(style.dump(value), expected, what);
  assert.equal(style.dump(value), expected, `${what}, again`);
  assert.deepEqual(yaml.load(style.dump(value)), yaml.load(expected), `${what} reads back the same`);
  // written a level deeper (compose's blocks under services:): js-yaml's text with every non-empty line two spaces in
  if (style.name === 'emitted' && value !== null && typeof value === 'object' && !Array.isArray(value)) {
    assert.equal(dumpYamlNested(value as Record<string, unknown>), expected.replace(/^(?=.)/gm, '  '), `${what}, nested`);
  }
}

describe('the emitters\' YAML dump', () => {
  test('equals js-yaml\'s for every compose document and block, every preset on docker and bare metal behind each proxy', () => {
    let documents = 0;
    for (const preset of catalogue.presets.keys()) {
      for (const deployment of ['docker', 'bare-metal'] as const) {
        for (const proxy of ['none', ...catalogue.proxies.keys()]) {
          for (const domain of [undefined, 'example.com']) {
            const resolution = resolve(catalogue, { preset, proxy, domain });
            if (resolution.errors.length || resolution.conflicts.length) continue;
            const doc = composeDocument(buildModel(resolution, { name: 'yaml-check', domain, gpu: preset === 'local-ai', deployment, hardened: true })) as { services: Record<string, unknown> };
            assertDumpsAlikeIn(doc, `${preset}, ${deployment}, ${proxy}, ${domain ?? 'no domain'}`);
            for (const [id, def] of Object.entries(doc.services)) assertDumpsAlikeIn({ [id]: def }, `${preset}: the block of ${id}`);
            documents++;
          }
        }
      }
    }
    assert.ok(documents > catalogue.presets.size, `${documents} documents compared`);
  });

  test('equals js-yaml\'s for every Swarm stack document, every preset behind each proxy', () => {
    let documents = 0;
    for (const preset of catalogue.presets.keys()) {
      for (const proxy of ['none', ...catalogue.proxies.keys()]) {
        for (const domain of [undefined, 'example.com']) {
          const resolution = resolve(catalogue, { preset, proxy, domain });
          if (resolution.errors.length || resolution.conflicts.length) continue;
          const { document } = swarmDocument(buildModel(resolution, { name: 'yaml-check', domain, gpu: false, deployment: 'swarm', hardened: true }));
          assertDumpsAlikeIn(document, `${preset}, swarm, ${proxy}, ${domain ?? 'no domain'}`);
          documents++;
        }
      }
    }
    assert.ok(documents > catalogue.presets.size, `${documents} documents compared`);
  });

  for (const style of STYLES) test(`equals js-yaml's on every branch of its scalar styling and layout (${style.name})`, () => {
    const assertDumpsAlike = (value: unknown, what: string) => assertDumpsAlikeIn(value, what, style);
    const strings = [
      '', ' ', '  lead', 'trail ', 'plain', 'two words', 'yes', 'no', 'on', 'off', 'y', 'true', 'False', 'null', 'Null', '~', '8080', '0x1F', '0o17',
      '1e3', '1.5', '.inf', '-.inf', '.nan', '2026-11-28', '12:30', 'a: b', 'a:b', 'a #b', '#x', '- x', '-x', '-', '? x', ':x', '{x}', '[x]', 'a,b', '@x',
      '`x`', '!tag', '&anchor', '*alias', '|x', '>x', '%x', "'q'", '"q"', 'back\\slash', 'tab\there', 'é ü', '日本', '\u2028', '\uFEFFbom', '\x7F', '\x85',
      '---', '...', '--- x', '=', '<<', '${VAR:-default}', '${VAR:?set it}', 'http://x.example.com:8080/path?q=1#f', 'x'.repeat(2000),
      // multi-line: literal blocks (clip, strip, keep, an indentation indicator), or double quotes
      'a\nb', 'a\nb\n', 'a\nb\n\n', '\n', '\na', ' a\nb', 'a\n\nb', 'a\n  b\n', 'tab\tline\nnext', 'a\r\nb', '---\nx', 'x\n---\ny', '  \n  ', 'a \nb',
    ];
    const scalars = [...strings, 0, -0, 1, -1, 0.5, 1e21, 1e-7, Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, 2 ** 53, true, false, null];
    const keys = ['plain', 'two words', 'a: b', '8080', 'true', 'null', '', ' x', '-x', '? x', '#x', 'é', 'k'.repeat(1100), 'multi\nline', '<<', '${X}'];
    assertDumpsAlike({ scalars }, 'scalars in a sequence');
    assertDumpsAlike(Object.fromEntries(scalars.map((s, i) => [`k${i}`, s])), 'scalars as values');
    assertDumpsAlike({ deeper: { still: { more: Object.fromEntries(scalars.map((s, i) => [`k${i}`, [s, { s }]])) } } }, 'scalars deep in mappings and sequences');
    for (const key of keys) assertDumpsAlike({ [key]: 'v', nested: { [key]: { [key]: [key] } } }, `the key ${JSON.stringify(key).slice(0, 40)}`);
    assertDumpsAlike({
      empty: {}, none: [], undef: undefined, list: [undefined, null, [], {}, [[1, [2, []]], { a: [] }], { a: undefined }],
      seqOfMaps: [{ a: 1, b: { c: [1, 2] } }, { only: undefined, x: 'y' }], seqOfSeqs: [['a', 'b'], [['c']]],
    }, 'empty and nested collections, undefined values and items');
    // a hole in an array is an undefined item
    assertDumpsAlike({ bare: Object.assign(Object.create(null), { a: 1, b: { c: 'x' } }), sparse: [1, , 3] }, 'a mapping without a prototype, a sparse sequence');
    for (const root of [{}, [], [1, 'a'], 'text', 5, null, { a: undefined }]) assertDumpsAlike(root, `the root ${JSON.stringify(root)}`);
    // what js-yaml refuses, this refuses alike
    class Thing { x = 1; }
    for (const odd of [{ f: () => 1 }, { t: new Thing() }, { list: [Symbol('s')] }]) {
      assert.throws(() => yaml.dump(odd, style.options), yaml.YAMLException);
      assert.throws(() => style.dump(odd), yaml.YAMLException);
    }
  });

  test('texts kept by their JSON (a reference file\'s services and skill packs) equal js-yaml\'s, also for values whose JSON is another\'s', () => {
    const expected = (value: unknown) => yaml.dump(value, QUOTED_DUMP_OPTIONS);
    // items that share a JSON with another but dump otherwise (-0 and 0, NaN and null, a date and its string)
    // come first and after, so neither can be served the other's kept text
    const items: unknown[] = [
      { id: 'a', port: 0, web: true, url: null }, { id: 'a', port: -0, web: true, url: null }, { id: 'a', port: Number.NaN, web: true, url: null },
      { id: 'b', ports: [{ container: 80, web: true }], secretEnv: ['B_TOKEN'], note: 'a: b #c', lines: 'one\ntwo\n' },
      { id: 'c', empty: {}, none: [], gone: undefined }, 'plain', 8080, null, ['nested', ['deeper']], { when: new Date(0) }, { when: new Date(0).toJSON() },
    ];
    for (const order of [items, [...items].reverse()]) {
      for (const [i, item] of order.entries()) {
        for (let round = 0; round < 2; round++) {
          assert.equal(dumpQuotedListKept('services', [item]), expected({ services: [item] }), `item ${i}, round ${round}`);
          assert.equal(dumpQuotedYamlKept({ skills: { packs: [item] } }), expected({ skills: { packs: [item] } }), `document ${i}, round ${round}`);
        }
      }
      assert.equal(dumpQuotedListKept('services', order), expected({ services: order }), 'every item in one list');
    }
    // a frozen item's text is kept by the item itself: the same object in two lists, and frozen items whose JSON
    // is another's, are each written as js-yaml writes them
    const frozen = items.filter((item) => typeof item === 'object' && item !== null).map((item) => deepFreeze(structuredClone(item)));
    for (const round of [0, 1]) {
      for (const [i, item] of frozen.entries()) assert.equal(dumpQuotedListKept('services', [item, item]), expected({ services: [item, item] }), `frozen item ${i}, round ${round}`);
      assert.equal(dumpQuotedListKept('companions', [...frozen, ...items]), expected({ companions: [...frozen, ...items] }), `frozen and not, round ${round}`);
    }
    assert.equal(dumpQuotedListKept('services', []), expected({ services: [] }), 'an empty list');
    assert.equal(dumpQuotedListKept('two words', [{ a: 1 }]), expected({ 'two words': [{ a: 1 }] }), 'a key that is quoted');
  });
});
