// Issue 14 over generated stacks: every container hardened (cap_drop ALL + what its manifest names,
// no-new-privileges), bounded (memory and pids limits), rotating its logs,
// stateful services given time to stop, no raw Docker socket, image pins in .env.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import * as yaml from 'js-yaml';
import { readConfig } from '../../src/config.js';
import { Generator, type GenerateRequest } from '../../src/pipeline/generate.js';
import { LOGGING } from '../../src/emit/compose/container-policy.js';
import { envExampleKeys } from '../support/bundle.js';
import { conflictFreeGroups, shippedCatalogue } from '../support/server.js';

const catalogue = shippedCatalogue();
const generator = new Generator(catalogue, readConfig({}).templatesDir, 200);

type Service = {
  image: string; cap_drop?: string[]; cap_add?: string[]; security_opt?: string[]; mem_limit?: string; pids_limit?: number;
  logging?: unknown; stop_grace_period?: string; stop_signal?: string; volumes?: string[]; environment?: Record<string, string>; networks?: string[];
};

function stack(request: GenerateRequest) {
  const bundle = generator.generate(request);
  const text = bundle.files['docker-compose.yml'];
  const compose = yaml.load(text) as { services: Record<string, Service>; networks: Record<string, { internal?: boolean }> };
  return { bundle, text, compose, env: envExampleKeys(bundle.files['.env.example']) };
}

const plugins = new Map([...catalogue.services, ...catalogue.frameworks, ...catalogue.proxies].map(([id, p]) => [id, p]));
const seconds = (d: string) => Number(d.slice(0, -1)) * ({ s: 1, m: 60, h: 3600 } as Record<string, number>)[d.slice(-1)];

// every service (in conflict-free groups), every framework and every proxy
function matrix(): GenerateRequest[] {
  const groups = conflictFreeGroups(catalogue);
  const proxies = [...catalogue.proxies.keys()];
  return [
    ...groups.map((services, i) => ({ name: `hard-${i}`, services, proxy: proxies[i % proxies.length] })),
    ...[...catalogue.frameworks.keys()].map((fw, i) => ({ name: `hard-fw-${fw}`, primaryFramework: fw, proxy: proxies[i % proxies.length] })),
  ];
}

describe('hardened and bounded containers', () => {
  const stacks = matrix().map(stack);

  test('every container drops all capabilities but those its manifest names, with no-new-privileges', () => {
    for (const { compose } of stacks) {
      for (const [id, def] of Object.entries(compose.services)) {
        const plugin = plugins.get(id.replace(/-setup$/, ''));
        if (plugin?.manifest.hardening.unsupported) {
          assert.equal(def.cap_drop, undefined, `${id} cannot run hardened and says why`);
          continue;
        }
        assert.deepEqual(def.cap_drop, ['ALL'], id);
        assert.deepEqual(def.security_opt, ['no-new-privileges:true'], id);
        if (plugin) assert.deepEqual(def.cap_add ?? [], [...(plugin.manifest.hardening.capAdd ?? [])].sort(), id);
      }
    }
  });

  test('every container has a memory limit from .env, a pids limit and the shared log rotation', () => {
    for (const { compose, text, env } of stacks) {
      for (const [id, def] of Object.entries(compose.services)) {
        assert.match(def.mem_limit ?? '', /^(\$\{[A-Z0-9_]+_MEMORY:-\d+m\}|\d+m)$/, `${id} memory`);
        assert.ok((def.pids_limit ?? 0) > 0, `${id} pids`);
        assert.deepEqual(def.logging, LOGGING, `${id} logging`);
        const variable = /^\$\{([A-Z0-9_]+):-(\d+)m\}$/.exec(def.mem_limit!);
        if (variable) assert.equal(env.get(variable[1]), `${variable[2]}m`, `${id}: ${variable[1]} in .env`);
      }
      assert.doesNotMatch(text, /^\s*[\w-]+: \*/m, 'no YAML aliases (parsers cap how many a document may hold)');
    }
  });

  test('services with data on a volume get at least 30 s to stop, with the signal upstream recommends', () => {
    for (const { compose } of stacks) {
      for (const [id, def] of Object.entries(compose.services)) {
        const plugin = plugins.get(id);
        if (!plugin || !(plugin.manifest.volumes ?? []).length) continue;
        assert.ok(def.stop_grace_period && seconds(def.stop_grace_period) >= 30, `${id}: ${def.stop_grace_period}`);
        assert.equal(def.stop_signal, plugin.manifest.stop?.signal, id);
      }
    }
  });

  test('image pins live in .env, and no container mounts the raw Docker socket unless its plugin says why it must', () => {
    for (const { compose, env } of stacks) {
      for (const [id, def] of Object.entries(compose.services)) {
        const pin = /^\$\{([A-Z0-9_]+_IMAGE):-(.+)\}$/.exec(def.image);
        assert.ok(pin, `${id}: ${def.image}`);
        assert.equal(env.get(pin![1]), pin![2], `${id}: ${pin![1]} in .env`);
        const socket = (def.volumes ?? []).some((v) => v.startsWith('/var/run/docker.sock'));
        if (socket && id !== 'docker-socket-proxy') assert.ok(plugins.get(id)?.manifest.hardening.unsupported, `${id} mounts the socket`);
      }
    }
  });

  test('a service using the Docker API reaches it through the socket proxy, on an internal network', () => {
    const users = [...plugins.values()].filter((p) => p.manifest.dockerApi);
    assert.ok(users.length > 0, 'some plugin uses the Docker API');
    for (const user of users) {
      const request: GenerateRequest = user.kind === 'framework' ? { name: `api-${user.id}`, primaryFramework: user.id } : { name: `api-${user.id}`, services: [user.id] };
      const { compose } = stack(request);
      const proxy = compose.services['docker-socket-proxy'];
      for (const section of user.manifest.dockerApi!.sections) assert.equal((proxy.environment ?? {})[section], '1', `${user.id}: ${section}`);
      assert.equal(proxy.environment!.POST, user.manifest.dockerApi!.write ? '1' : '0');
      assert.deepEqual(proxy.networks, ['docker-api']);
      assert.equal(compose.networks['docker-api'].internal, true);
      assert.ok(compose.services[user.id].networks!.includes('docker-api'));
      assert.equal(compose.services[user.id].environment?.DOCKER_HOST ?? Object.values(compose.services[user.id].environment ?? {}).find((v) => v.includes('docker-socket-proxy')), 'tcp://docker-socket-proxy:2375');
      assert.ok(!(compose.services[user.id].volumes ?? []).some((v) => v.includes('docker.sock')));
    }
  });

  test('memoryLimitMB is the sum of the limits the compose file sets; the estimate, the sum of the minimums, is below it', () => {
    for (const request of [{ name: 'mem-full', preset: 'full-stack', proxy: 'caddy' }, { name: 'mem-ai', preset: 'local-ai' }]) {
      const { bundle, compose } = stack(request);
      const total = Object.entries(compose.services)
        .filter(([id]) => !id.endsWith('-setup'))
        .reduce((sum, [, def]) => sum + Number(/(\d+)m\}?$/.exec(def.mem_limit!)![1]), 0);
      assert.equal(bundle.summary.memoryLimitMB, total, request.name);
      assert.ok(bundle.summary.estimatedMemoryMB < total, request.name);
    }
  });

  test('hardened: false turns it off, and the README says so', () => {
    const { compose, bundle } = stack({ name: 'soft', preset: 'web-agent', hardened: false });
    for (const [id, def] of Object.entries(compose.services)) assert.equal(def.cap_drop, undefined, id);
    assert.match(bundle.files['README.md'], /generated with `hardened: false`/);
    assert.deepEqual(JSON.parse(bundle.files['stackwright.json']).request.hardened, false);
  });
});
