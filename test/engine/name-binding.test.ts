// A new stack name is bound into a bundle rendered once per request shape (src/engine/name-binding.ts).
// That must never change a byte: every preset, natively and in containers, with frameworks and proxies,
// equals a render from scratch; a template that transforms the name, and a name YAML would read as
// something else, fall back to rendering.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { loadCatalogueOrThrow } from '../../src/catalogue/load.js';
import { readConfig } from '../../src/config.js';
import { bundleJson, Generator, type GenerateRequest } from '../../src/engine/generate.js';
import { bindableName, NAME_PLACEHOLDER, placeholderVerbatim } from '../../src/engine/name-binding.js';
import { service, writeCatalogue } from '../support/fixture.js';
import { shippedCatalogue } from '../support/server.js';

const templates = readConfig({}).templatesDir;

describe('late binding of the stack name', () => {
  const catalogue = shippedCatalogue();
  const bound = new Generator(catalogue, templates, 2000);
  const fresh = () => new Generator(catalogue, templates, 0);

  test('gives byte-identical bundles to a render from scratch, for every preset and the ways a stack is built', () => {
    const frameworks = [...catalogue.frameworks.keys()];
    const shapes: Omit<GenerateRequest, 'name'>[] = [];
    for (const preset of catalogue.presets.keys()) {
      shapes.push({ preset, proxy: 'caddy', domain: 'example.com' });
      shapes.push({ preset, deploymentType: 'bare-metal', proxy: 'traefik' });
    }
    shapes.push({ preset: 'web-agent', primaryFramework: frameworks[1], companionFrameworks: frameworks.slice(2), proxy: 'nginx' });
    shapes.push({ preset: 'local-ai', deploymentType: 'bare-metal', primaryFramework: 'zeroclaw', gpu: true, platform: 'linux/arm64' });
    for (const shape of shapes) {
      // the first name renders the shape, the later ones are bound into it
      for (const name of ['first-stack', 'a', 'team_2-prod']) {
        const request = { ...shape, name };
        const bundle = bound.generate(request);
        assert.deepEqual(bundle, fresh().generate(request), JSON.stringify(request));
        // the JSON the API sends, partly from pre-encoded files, is exactly JSON.stringify of the bundle
        assert.equal(bundleJson(bundle), JSON.stringify(bundle));
      }
    }
  });

  test('a template that changes the name (here: upper case) is rendered for each name instead', () => {
    const dirs = writeCatalogue({
      'plugins/services/alpha/service.yaml': service('alpha', 'files:\n  - { template: name.txt.eta, target: /etc/name.txt, description: the name in capitals }\n'),
      'plugins/services/alpha/name.txt.eta': '<%= it.stack.name.toUpperCase() %>\n',
    });
    const fixture = loadCatalogueOrThrow({ plugins: dirs.plugins, catalogue: dirs.catalogue });
    const generator = new Generator(fixture, templates, 100);
    for (const name of ['one', 'two-x']) {
      const files = generator.generate({ name, services: ['alpha'] }).files;
      assert.equal(files['config/alpha/name.txt'], `${name.toUpperCase()}\n`);
      assert.deepEqual(files, new Generator(fixture, templates, 0).generate({ name, services: ['alpha'] }).files);
    }
    fs.rmSync(dirs.root, { recursive: true, force: true });
  });

  test('the guards: which names are bound, and which traces of the placeholder count as verbatim', () => {
    for (const name of ['research', 'a', 'team_2-prod']) assert.ok(bindableName(name), name);
    for (const name of ['123', '1e3', 'true', 'no', 'null', 'on']) assert.ok(!bindableName(name), name);
    assert.ok(placeholderVerbatim([`x ${NAME_PLACEHOLDER}/y`, 'no trace']));
    assert.ok(!placeholderVerbatim([NAME_PLACEHOLDER.toUpperCase()]));
    assert.ok(!placeholderVerbatim([NAME_PLACEHOLDER.replace(/-/g, '_')]));
    assert.ok(!placeholderVerbatim([NAME_PLACEHOLDER.slice(0, 12)]));
    assert.ok(!placeholderVerbatim([NAME_PLACEHOLDER.slice(6)]));
    assert.ok(path.basename(NAME_PLACEHOLDER) === NAME_PLACEHOLDER);
  });
});
