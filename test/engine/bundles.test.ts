// The generation matrix, every bundle checked by the real tools (docker-compose config, dclint, caddy
// validate, nginx -t, the Traefik schema, bash -n, shellcheck, a PowerShell parser, YAML parsers,
// dotenv-linter) plus in-process checks: variables defined, tar equal to JSON, byte-identical reruns.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { before, describe, test } from 'node:test';
import * as yaml from 'js-yaml';
import { readConfig } from '../../src/config.js';
import { archiveBuffer } from '../../src/bundle/archive.js';
import { Generator, type Bundle, type GenerateRequest } from '../../src/pipeline/generate.js';
import { composeVariables, envExampleKeys, readTarGz, writeBundle } from '../support/bundle.js';
import { conflictFreeGroups, shippedCatalogue } from '../support/server.js';
import { assertValidatorsInstalled, pool, validateBundleDir, type ValidatorRun } from '../support/validators.js';

const catalogue = shippedCatalogue();
const generator = new Generator(catalogue, readConfig({}).templatesDir, 2000);
const presets = [...catalogue.presets.keys()];
const frameworks = [...catalogue.frameworks.keys()];
const proxies = ['none', ...catalogue.proxies.keys()];

function matrix(): GenerateRequest[] {
  const cases: GenerateRequest[] = [];
  presets.forEach((preset, i) => proxies.forEach((proxy, j) => {
    // alternate domain / no domain so each proxy is seen both ways across the presets
    const domain = (i + j) % 2 ? 'example.com' : undefined;
    cases.push({ name: `${preset}-${proxy}`.slice(0, 63), preset, proxy, domain });
  }));
  frameworks.forEach((primary, i) => {
    const companion = frameworks[(i + 1) % frameworks.length];
    cases.push({ name: `fw-${primary}`, primaryFramework: primary, companionFrameworks: [companion], preset: 'web-agent', proxy: 'caddy' });
  });
  for (const preset of presets) cases.push({ name: `bm-${preset}`, preset, deploymentType: 'bare-metal', proxy: 'traefik', domain: 'example.net' });
  // every framework natively, behind nginx (static upstreams to the host) or caddy
  frameworks.forEach((primary, i) => cases.push({ name: `bm-fw-${primary}`, primaryFramework: primary, deploymentType: 'bare-metal', proxy: i % 2 ? 'nginx' : 'caddy' }));
  // a stack per category holding all of its services (split only where two conflict), proxies and
  // domains taken in turn; natively too where a category has a service with a bare-metal recipe
  [...catalogue.categories.keys()].forEach((category, i) => {
    const inCategory = new Set((catalogue.servicesByCategory.get(category) ?? []).map((s) => s.id));
    conflictFreeGroups(catalogue).map((g) => g.filter((id) => inCategory.has(id))).filter((g) => g.length).forEach((services, j) => {
      const proxy = proxies[1 + ((i + j) % (proxies.length - 1))];
      const name = `cat-${category}${j ? `-${j}` : ''}`;
      cases.push({ name, services, proxy, domain: (i + j) % 2 ? undefined : `${category}.example.com` });
      if (services.some((id) => catalogue.services.get(id)!.manifest.native)) cases.push({ name: `${name}-bm`, services, deploymentType: 'bare-metal', proxy: 'caddy' });
    });
  });
  // exactly one value the user must set: start.sh's list of required keys holds one word (shellcheck SC2043 once)
  cases.push({ name: 'one-required', services: ['wg-easy'], proxy: 'caddy', domain: 'example.com' });
  // a domain that stays on this machine: host names under localhost, plain HTTP
  cases.push({ name: 'nginx-localhost', preset: 'web-agent', proxy: 'nginx', domain: 'localhost' });
  cases.push({ name: 'gpu-arm', preset: 'local-ai', gpu: true, platform: 'linux/arm64', proxy: 'nginx' });
  cases.push({ name: 'amd-full', preset: 'full-stack', platform: 'linux/amd64', proxy: 'traefik', domain: 'stack.example.com', primaryFramework: 'memu', companionFrameworks: ['codex', 'nanoclaw'] });
  return cases;
}


const cases = matrix();
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'stackwright-bundles-'));
const bundles = new Map<string, Bundle>();
const runs = new Map<string, ValidatorRun>();

describe('generated bundles pass the real validators', () => {
  before(async () => {
    assertValidatorsInstalled();
    for (const request of cases) {
      const bundle = generator.generate(request);
      bundles.set(request.name, bundle);
      writeBundle(path.join(root, request.name), bundle.files);
    }
    const results = await pool(cases, os.availableParallelism(), (request) => validateBundleDir(path.join(root, request.name)));
    cases.forEach((request, i) => runs.set(request.name, results[i]));
  });

  test('the matrix covers every service, category, preset, proxy and framework (as primary and as companion), bare-metal, GPU and platform', () => {
    for (const id of catalogue.services.keys()) assert.ok(cases.some((c) => c.services?.includes(id)), `service ${id} is in no bundle`);
    for (const category of catalogue.categories.keys()) {
      const all = (catalogue.servicesByCategory.get(category) ?? []).map((s) => s.id);
      assert.ok(all.every((id) => cases.some((c) => c.name.startsWith(`cat-${category}`) && c.services!.includes(id))), `category ${category} in its own stacks`);
    }
    for (const p of presets) for (const proxy of proxies) assert.ok(cases.some((c) => c.preset === p && c.proxy === proxy), `${p} behind ${proxy}`);
    for (const p of presets) assert.ok(cases.some((c) => c.preset === p && c.deploymentType === 'bare-metal'));
    for (const f of frameworks) {
      assert.ok(cases.some((c) => c.primaryFramework === f));
      assert.ok(cases.some((c) => c.companionFrameworks?.includes(f)));
    }
    for (const proxy of proxies) {
      assert.ok(cases.some((c) => c.proxy === proxy && c.domain), `${proxy} with a domain`);
      assert.ok(cases.some((c) => c.proxy === proxy && !c.domain), `${proxy} without a domain`);
    }
  });

  for (const request of cases) {
    test(`${request.name}: ${JSON.stringify({ ...request, name: undefined })}`, async () => {
      const run = runs.get(request.name)!;
      assert.ok(run.ok && run.failures.length === 0, `validators failed:\n${run.failures.join('\n') || run.output}`);
      assert.ok(run.passed >= 10, `only ${run.passed} checks ran:\n${run.output}`);

      const bundle = bundles.get(request.name)!;
      const keys = envExampleKeys(bundle.files['.env.example']);
      for (const v of composeVariables(bundle.files['docker-compose.yml'])) assert.ok(keys.has(v.name), `\${${v.name}} is not in .env.example`);

      for (const [file, content] of Object.entries(bundle.files)) {
        if (/\.ya?ml$/.test(file)) assert.doesNotThrow(() => yaml.load(content), file);
      }
      const compose = yaml.load(bundle.files['docker-compose.yml']) as { services: Record<string, { networks: string[] }>; networks: object };
      // every service on the stack network; the Docker API only on its internal one (socket proxy and its users)
      const api = 'docker-socket-proxy' in compose.services;
      assert.deepEqual(Object.keys(compose.networks), api ? ['stack', 'docker-api'] : ['stack']);
      for (const [id, s] of Object.entries(compose.services)) {
        if (id === 'docker-socket-proxy') assert.deepEqual(s.networks, ['docker-api']);
        else assert.ok(s.networks.includes('stack') && s.networks.every((n) => n === 'stack' || (api && n === 'docker-api')), `${id}: ${s.networks}`);
      }

      const tarFiles = (await readTarGz(await archiveBuffer(bundle))).filter((e) => e.type === 'file');
      assert.deepEqual(Object.fromEntries(tarFiles.map((e) => [e.name.slice(request.name.length + 1), e.content])), bundle.files, 'tar and JSON differ');
      assert.deepEqual(generator.generate(request), bundle, 'a second run differs');
    });
  }
});
