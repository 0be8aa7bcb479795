// The stack name and the domain are bound into a bundle rendered once per request shape
// (src/cache/late-binding.ts). That must never change a byte: every preset, natively and in containers,
// with frameworks and proxies, with and without a domain, equals a render from scratch for new names, new
// domains and both; a template that uses either in a way a text replace cannot reproduce, and values a
// reader would take for something else, fall back to rendering.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { loadCatalogueOrThrow } from '../../src/catalogue/load.js';
import { readConfig } from '../../src/config.js';
import { boundIntoShape, bundleJson, Generator, type GenerateRequest } from '../../src/pipeline/generate.js';
import { bindableDomain, bindableName, DOMAIN_PLACEHOLDER, LATE_SCALARS, NAME_PLACEHOLDER, placeholderVerbatim } from '../../src/cache/late-binding.js';
import { service, writeCatalogue } from '../support/fixture.js';
import { shippedCatalogue } from '../support/server.js';

const templates = readConfig({}).templatesDir;
const [NAME, DOMAIN] = LATE_SCALARS;

/** Requests of one shape: the first renders, the second builds the shape, the rest are bound. */
const VALUES: { name: string; domain: string }[] = [
  { name: 'first-stack', domain: 'example.com' },
  { name: 'a', domain: 'example.com' },
  { name: 'a', domain: 'b.example.org' },
  { name: 'team_2-prod', domain: 'x-1.deep.sub.example.net' },
  { name: 'team_2-prod', domain: 'z.co' },
];

describe('late binding of the stack name and domain', () => {
  const catalogue = shippedCatalogue();

  test('gives byte-identical bundles to a render from scratch, for every preset, with new names and new domains', () => {
    const bound = new Generator(catalogue, templates, 2000);
    const fresh = () => new Generator(catalogue, templates, 0);
    const frameworks = [...catalogue.frameworks.keys()];
    const shapes: Omit<GenerateRequest, 'name'>[] = [];
    for (const preset of catalogue.presets.keys()) {
      shapes.push({ preset, proxy: 'caddy', domain: 'example.com' });
      shapes.push({ preset, deploymentType: 'bare-metal', proxy: 'traefik', domain: 'example.com' });
      shapes.push({ preset, proxy: 'nginx' });
    }
    shapes.push({ preset: 'web-agent', primaryFramework: frameworks[1], companionFrameworks: frameworks.slice(2), proxy: 'caddy', domain: 'example.com' });
    shapes.push({ preset: 'local-ai', deploymentType: 'bare-metal', primaryFramework: 'zeroclaw', gpu: true, platform: 'linux/arm64', proxy: 'traefik', domain: 'example.com' });
    for (const shape of shapes) {
      for (const [i, values] of VALUES.entries()) {
        const request = { ...shape, name: values.name, ...(shape.domain ? { domain: values.domain } : {}) };
        const bundle = bound.generate(request);
        assert.deepEqual(bundle, fresh().generate(request), JSON.stringify(request));
        // the first of a shape renders; every later one is bound (none of the shipped templates blocks it)
        assert.equal(boundIntoShape(bundle), i > 0, JSON.stringify(request));
        // the JSON the API sends, partly from pre-encoded files, is exactly JSON.stringify of the bundle
        assert.equal(bundleJson(bundle), JSON.stringify(bundle));
      }
    }
  });

  test('a request whose domain is not bound (localhost, numeric-looking, upper case) renders in full, byte-identical', () => {
    const bound = new Generator(catalogue, templates, 2000);
    for (const domain of ['localhost', '1.5', 'host.1e5', 'Example.COM', 'example.com', 'other.example.com']) {
      for (const name of ['one', 'two', '123', 'yes']) {
        const request: GenerateRequest = { preset: 'full-stack', proxy: 'caddy', name, domain };
        assert.deepEqual(bound.generate(request), new Generator(catalogue, templates, 0).generate(request), JSON.stringify(request));
      }
    }
  });

  test('templates that use the name or domain in ways a text replace cannot reproduce are rendered for each request', () => {
    // each line breaks binding in its own way; the output must still be exactly a render from scratch
    const uses: Record<string, string> = {
      'upper.txt.eta': '<%= it.stack.name.toUpperCase() %> <%= (it.stack.domain || "").toUpperCase() %>\n',
      'labels.txt.eta': '<%= (it.stack.domain || "").split(".").join("_") %>\n',
      'tld.txt.eta': 'tld <%= (it.stack.domain || "").split(".").pop() %>\n',
      'first-label.txt.eta': 'zone <%= (it.stack.domain || "x").split(".")[0] %>\n',
      'pad.txt.eta': '[<%= (it.stack.domain || "").padEnd(24, ".") %>]\n',
      'length.txt.eta': 'length <%= (it.stack.domain || "").length %>\n',
      'branch.txt.eta': '<%= (it.stack.domain || "").endsWith(".com") ? "commercial" : "other" %>\n',
      'sorted.txt.eta': '<%= [it.stack.domain || "", "m.example.org"].sort().join(" ") %>\n',
      'dns-name.txt.eta': '<%= "_acme-challenge." + (it.stack.domain || "").replace(/\\./g, "-") %>\n',
    };
    for (const [file, body] of Object.entries(uses)) {
      const dirs = writeCatalogue({
        'plugins/services/alpha/service.yaml': service('alpha', `files:\n  - { template: ${file}, target: /etc/${file.replace(/\.eta$/, '')}, description: the domain in use }\n`),
        [`plugins/services/alpha/${file}`]: body,
      });
      const fixture = loadCatalogueOrThrow({ plugins: dirs.plugins, catalogue: dirs.catalogue });
      const generator = new Generator(fixture, templates, 100);
      for (const values of VALUES) {
        const request = { services: ['alpha'], ...values };
        const bundle = generator.generate(request);
        assert.deepEqual(bundle.files, new Generator(fixture, templates, 0).generate(request).files, `${file} ${JSON.stringify(request)}`);
        assert.ok(!boundIntoShape(bundle), `${file} must not be bound`);
      }
      fs.rmSync(dirs.root, { recursive: true, force: true });
    }
  });

  test('the domain inside quoted, escaped and composed text is bound exactly', () => {
    // the value lands in JSON, shell, YAML and URL contexts beside the placeholder's neighbours
    const dirs = writeCatalogue({
      'plugins/services/alpha/service.yaml': service('alpha', 'files:\n  - { template: uses.txt.eta, target: /etc/uses.txt, description: the domain in use }\n'),
      'plugins/services/alpha/uses.txt.eta': [
        'json <%= JSON.stringify({ host: "api." + it.stack.domain, name: it.stack.name }) %>',
        'yaml <%= it.yaml(it.stack.domain) %>',
        'conf <%= it.str("https://" + it.stack.domain + "/" + it.stack.name) %>',
        'glued <%= it.stack.name %><%= it.stack.domain %>.<%= it.stack.name %>',
        '',
      ].join('\n'),
    });
    const fixture = loadCatalogueOrThrow({ plugins: dirs.plugins, catalogue: dirs.catalogue });
    const generator = new Generator(fixture, templates, 100);
    for (const [i, values] of VALUES.entries()) {
      const request = { services: ['alpha'], ...values };
      const bundle = generator.generate(request);
      assert.equal(boundIntoShape(bundle), i > 0);
      const files = bundle.files;
      assert.match(files['config/alpha/uses.txt'], new RegExp(`^glued ${values.name}${values.domain.replace(/\./g, '\\.')}\\.${values.name}$`, 'm'));
      assert.deepEqual(files, new Generator(fixture, templates, 0).generate(request).files);
    }
    fs.rmSync(dirs.root, { recursive: true, force: true });
  });

  test('the guards: which names and domains are bound, and which traces of a placeholder count as verbatim', () => {
    for (const name of ['research', 'a', 'team_2-prod']) assert.ok(bindableName(name), name);
    for (const name of ['123', '1e3', 'true', 'no', 'null', 'on']) assert.ok(!bindableName(name), name);
    for (const domain of ['example.com', 'a-b.c.example.org', 'x1.io']) assert.ok(bindableDomain(domain), domain);
    for (const domain of ['localhost', '1.5', '1.e5', 'a.b1', 'Example.com', 'a-.com', 'xn--p1ai.xn--p1ai']) assert.ok(!bindableDomain(domain), domain);
    assert.ok(bindableDomain(DOMAIN_PLACEHOLDER) && bindableName(NAME_PLACEHOLDER));
    assert.ok(placeholderVerbatim([`x ${NAME_PLACEHOLDER}/y`, 'no trace'], NAME));
    assert.ok(!placeholderVerbatim([NAME_PLACEHOLDER.toUpperCase()], NAME));
    assert.ok(!placeholderVerbatim([NAME_PLACEHOLDER.replace(/-/g, '_')], NAME));
    assert.ok(!placeholderVerbatim([NAME_PLACEHOLDER.slice(0, 12)], NAME));
    assert.ok(!placeholderVerbatim([NAME_PLACEHOLDER.slice(6)], NAME));
    assert.ok(placeholderVerbatim([`https://grafana.${DOMAIN_PLACEHOLDER}/`], DOMAIN));
    assert.ok(!placeholderVerbatim([DOMAIN_PLACEHOLDER.split('.')[0]], DOMAIN));
    assert.ok(!placeholderVerbatim([DOMAIN_PLACEHOLDER.replace(/\./g, '-')], DOMAIN));
    assert.ok(!placeholderVerbatim([DOMAIN_PLACEHOLDER.toUpperCase()], DOMAIN));
    // neither placeholder leaves a trace of the other
    assert.ok(placeholderVerbatim([DOMAIN_PLACEHOLDER], NAME) && placeholderVerbatim([NAME_PLACEHOLDER], DOMAIN));
    assert.ok(path.basename(NAME_PLACEHOLDER) === NAME_PLACEHOLDER);
  });
});
