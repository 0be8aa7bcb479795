// Compose, Kubernetes and Swarm from one model (issue 32): per preset, a table read back from each target's own
// files as its own tool resolves them, with the same .env: Compose through `docker compose config` (Compose v2's
// parser), Kubernetes through `kubectl kustomize` (the Secrets decoded, $(VAR) references expanded as the
// kubelet does), Swarm through `docker stack config` (the Docker CLI's stack loader, which validates the file
// against its schema and interpolates it), fed by the bundle's own scripts/lib.sh stack_deploy as
// scripts/deploy.sh runs it. Services, images and tags, each variable's name and value, the .env keys each
// service holds, mounts, health commands, routes and their auth must be the same.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import * as yaml from 'js-yaml';
import { readConfig } from '../../src/config.js';
import { Generator } from '../../src/pipeline/generate.js';
import { CLAIM_SUBFOLDER } from '../../src/emit/kubernetes/workloads.js';
import { shippedCatalogue } from '../support/server.js';
import { writeBundle } from '../support/bundle.js';
import { composeV2, runWithoutDaemon } from '../support/compose.js';
import { expand, kustomize, runFile } from '../support/kubernetes.js';

const catalogue = shippedCatalogue();
const generator = new Generator(catalogue, readConfig({}).templatesDir, 0, 0);

interface Row { image: string; env: Record<string, string>; keys: string[]; mounts: string[]; health: string[] | null }
interface Table { services: Record<string, Row>; routes: string[] }

const run = runFile;

/** A Compose health test as the command it runs. */
function composeHealth(test: string[] | undefined): string[] | null {
  if (!test) return null;
  // `config` keeps $$ (its output is a compose file again); the engine runs $
  const command = test[0] === 'CMD-SHELL' ? ['sh', '-c', test[1]] : test.slice(1);
  return command.map((a) => a.replaceAll('$$', '$'));
}

/** The .env keys a service's Compose entry interpolates in its environment (from the file as written). */
function composeKeys(raw: any, id: string): string[] {
  const env = raw.services[id].environment ?? {};
  return [...new Set(Object.values(env as Record<string, string>).flatMap((v) => [...String(v).matchAll(/(?<!\$)\$\{([A-Z_][A-Z0-9_]*)/g)].map((m) => m[1])))].sort();
}

async function composeTable(dir: string, proxy: string, withProxy = false): Promise<Table> {
  const resolved = JSON.parse(await runWithoutDaemon([...composeV2(), 'config', '--format', 'json'], dir));
  const raw = yaml.load(fs.readFileSync(path.join(dir, 'docker-compose.yml'), 'utf8')) as any;
  const services: Record<string, Row> = {};
  for (const [id, s] of Object.entries(resolved.services as Record<string, any>)) {
    if (id === proxy && !withProxy) continue;
    const mounts = (s.volumes ?? []).map((v: any) => v.target);
    if (s.shm_size) mounts.push('/dev/shm');
    // tmpfs mounts are emptyDir volumes there
    for (const t of s.tmpfs ?? []) mounts.push(String(t).split(':')[0]);
    services[id] = {
      image: s.image,
      env: Object.fromEntries(Object.entries(s.environment ?? {}).map(([k, v]) => [k, String(v ?? '')])),
      keys: composeKeys(raw, id),
      mounts: mounts.sort(),
      health: composeHealth(s.healthcheck?.test),
    };
  }
  const routes: string[] = [];
  const dynamic = Object.entries(raw.services[proxy] ? readProxyRoutes(dir) : {});
  for (const [, r] of dynamic) routes.push(r);
  return { services, routes: routes.sort() };
}

/** Compose's Traefik routes: host → upstream, and whether basic auth guards it. */
function readProxyRoutes(dir: string): Record<string, string> {
  const file = fs.readdirSync(dir, { recursive: true }).map(String).find((f) => f.endsWith('dynamic.yml'))!;
  const doc = yaml.load(fs.readFileSync(path.join(dir, file), 'utf8')) as any;
  const out: Record<string, string> = {};
  for (const [name, r] of Object.entries(doc.http.routers as Record<string, any>)) {
    const host = /Host\(`([^`]+)`\)/.exec(r.rule)?.[1];
    const upstream = String(doc.http.services[r.service].loadBalancer.servers[0].url).replace(/^http:\/\//, '');
    out[name] = `${host} -> ${upstream} ${(r.middlewares ?? []).includes('stack-auth') ? 'basic-auth' : 'own login'}`;
  }
  return out;
}

async function kubernetesTable(dir: string): Promise<Table> {
  const objects = await kustomize(dir);
  const secrets = new Map(objects.filter((o) => o.kind === 'Secret').map((o) => [o.metadata.name, Object.fromEntries(Object.entries(o.data ?? {}).map(([k, v]) => [k, Buffer.from(String(v), 'base64').toString()]))]));
  const services: Record<string, Row> = {};
  for (const w of objects.filter((o) => ['Deployment', 'StatefulSet', 'Job'].includes(o.kind))) {
    const [c] = w.spec.template.spec.containers;
    const values = new Map<string, string>();
    const keys = new Set<string>();
    for (const e of c.env ?? []) {
      if (e.valueFrom) {
        keys.add(e.valueFrom.secretKeyRef.key);
        values.set(e.name, secrets.get(e.valueFrom.secretKeyRef.name)![e.valueFrom.secretKeyRef.key]);
      } else values.set(e.name, expand(e.value, values));
    }
    // the one variable only Kubernetes sets: a data folder one level inside its claim (a claim's root cannot be it)
    for (const v of catalogue.services.get(w.metadata.name)?.manifest.volumes ?? []) {
      if (!v.subfolderVariable) continue;
      assert.equal(values.get(v.subfolderVariable), `${v.target}/${CLAIM_SUBFOLDER}`, `${w.metadata.name}: ${v.subfolderVariable} inside its claim`);
      values.delete(v.subfolderVariable);
    }
    const probe = c.readinessProbe?.exec.command as string[] | undefined;
    services[w.metadata.name] = {
      image: c.image,
      env: Object.fromEntries([...values].filter(([k]) => !k.startsWith('STACKWRIGHT_REF_'))),
      keys: [...keys].sort(),
      mounts: (c.volumeMounts ?? []).map((m: any) => m.mountPath).sort(),
      health: probe ? probe.map((a) => expand(a, new Map())) : null,
    };
  }
  const routes = objects.filter((o) => o.kind === 'HTTPRoute' && o.spec.rules[0].backendRefs).map((r) => {
    const rule = r.spec.rules[0];
    const auth = (rule.filters ?? []).some((f: any) => f.type === 'ExtensionRef');
    return `${r.spec.hostnames[0]} -> ${rule.backendRefs[0].name}:${rule.backendRefs[0].port} ${auth ? 'basic-auth' : 'own login'}`;
  });
  return { services, routes: routes.sort() };
}

/**
 * Swarm's table: stack.yml as `docker stack deploy` would read it. The bundle's stack_deploy runs with a
 * `docker` on PATH that answers `stack deploy` with the real CLI's `stack config` (no engine is asked) and keeps
 * what `secret create` is given. A variable that reaches its container as a Swarm secret counts with the value
 * the container reads: the file its `*_FILE` variable names, or what the wrapper line before the command sets.
 */
async function swarmTable(dir: string): Promise<Table> {
  const bin = fs.mkdtempSync(path.join(os.tmpdir(), 'sw-agree-bin-'));
  const kept = path.join(bin, 'secrets');
  fs.mkdirSync(kept);
  fs.writeFileSync(path.join(bin, 'docker'), [
    '#!/bin/sh',
    'case "$1 $2" in',
    '  "secret inspect") exit 1 ;;',
    `  "secret create") for a; do prev=$name; name=$a; done; cat > ${JSON.stringify(kept)}/"$prev"; exit 0 ;;`,
    `  "stack deploy") exec ${JSON.stringify(DOCKER)} stack config -c stack.yml ;;`,
    'esac',
    'exit 64',
  ].join('\n') + '\n', { mode: 0o755 });
  const out = await run('bash', ['-c', `PATH=${bin}:$PATH; . scripts/lib.sh; stack_deploy`], dir);
  const resolved = yaml.load(out) as any;
  const secretOf = (key: string) => fs.readFileSync(path.join(kept, resolved.secrets[key].name), 'utf8');
  const raw = yaml.load(fs.readFileSync(path.join(dir, 'stack.yml'), 'utf8')) as any;
  const services: Record<string, Row> = {};
  for (const [id, s] of Object.entries(resolved.services as Record<string, any>)) {
    const env: Record<string, string> = Object.fromEntries(Object.entries(s.environment ?? {}).map(([k, v]) => [k, String(v ?? '')]));
    const mounted = ((s.secrets ?? []) as any[]).map((m) => String(m.source));
    for (const spec of catalogue.services.get(id)?.manifest.environment ?? catalogue.frameworks.get(id)?.manifest.environment ?? []) {
      const variable = spec.fileVariable;
      if (!variable || !env[variable]) continue;
      const key = env[variable].replace('/run/secrets/', '');
      assert.ok(mounted.includes(key), `${id}: ${variable} names a mounted secret`);
      env[spec.name] = secretOf(key);
      delete env[variable];
    }
    for (const [name, value] of wrapperValues(s.entrypoint ?? s.command, secretOf)) env[name] = value;
    services[id] = {
      image: s.image,
      env,
      keys: [...new Set([...composeKeys(raw, id), ...mounted])].sort(),
      mounts: (s.volumes ?? []).map((v: any) => v.target).sort(),
      health: composeHealth(s.healthcheck?.test),
    };
  }
  fs.rmSync(bin, { recursive: true, force: true });
  return { services, routes: Object.values(readProxyRoutes(dir)).sort() };
}

/** The variables a wrapper line (`sh -c '<NAME=...; export NAME>... exec "$@"' sh <command>`) sets, as the shell would. */
function wrapperValues(command: string[] | undefined, secretOf: (key: string) => string): Map<string, string> {
  const out = new Map<string, string>();
  if (!command || command[0] !== 'sh' || command[1] !== '-c' || !/^exec "\$\$?@"$/m.test(command[2])) return out;
  for (const line of command[2].split('\n')) {
    const m = /^([A-Z_][A-Z0-9_]*)=(.*); export \1$/.exec(line);
    if (!m) continue;
    let value = '';
    for (const [, quoted, file, word] of m[2].matchAll(/'((?:[^']|'\\'')*)'|"\$\$?\(cat \/run\/secrets\/([A-Za-z0-9_]+)\)"|([A-Za-z0-9_.\/:=@%+,-]+)/g)) {
      value += quoted !== undefined ? quoted.replaceAll("'\\''", "'").replaceAll('$$', '$') : file !== undefined ? secretOf(file).replace(/\n+$/, '') : word;
    }
    out.set(m[1], value);
  }
  return out;
}

/** The real docker CLI, by its path: the fake one in front of it on PATH hands `stack deploy` on to it. */
const DOCKER = process.env.STACK_DOCKER ?? execFileSync('sh', ['-c', 'command -v docker'], { encoding: 'utf8' }).trim();

/** The other target's table equals Compose's, row by row. */
function assertAgree(compose: Table, other: Table): void {
  assert.deepEqual(Object.keys(other.services).sort(), Object.keys(compose.services).sort(), 'the same services');
  for (const id of Object.keys(compose.services)) {
    const [a, b] = [compose.services[id], other.services[id]];
    assert.equal(b.image, a.image, `${id}: image and tag`);
    assert.deepEqual(b.env, a.env, `${id}: every variable and its value`);
    assert.deepEqual(b.keys, a.keys, `${id}: the .env keys it holds`);
    assert.deepEqual(b.mounts, a.mounts, `${id}: mounts`);
    assert.deepEqual(b.health, a.health, `${id}: health command`);
  }
  assert.deepEqual(other.routes, compose.routes, 'routes and their auth');
}

/** Swarm runs every preset; Kubernetes those without the Docker engine. */
const allPresets = [...catalogue.presets.keys()].sort();
const presets = allPresets.filter((p) => !catalogue.presets.get(p)!.manifest.services.some((s) => {
  const m = catalogue.services.get(s)!.manifest;
  return m.dockerApi || (m.hostMounts ?? []).some((h) => h.source.endsWith('docker.sock'));
}));

// three presets at a time: most of each is waiting for docker compose config, kubectl and the scripts
describe('Compose and Kubernetes agree, per preset', { concurrency: 3 }, () => {
  for (const preset of presets) {
    test(preset, async () => {
      const request = { name: 'agree', preset, proxy: 'traefik', domain: 'example.com' };
      const kube = fs.mkdtempSync(path.join(os.tmpdir(), 'sw-agree-k8s-'));
      const compose = fs.mkdtempSync(path.join(os.tmpdir(), 'sw-agree-compose-'));
      writeBundle(kube, generator.generate({ ...request, deploymentType: 'kubernetes' }).files);
      writeBundle(compose, generator.generate(request).files);
      await run(path.join(kube, 'scripts/secrets.sh'), []);
      // one .env for both: the secrets the Kubernetes script generated
      fs.copyFileSync(path.join(kube, '.env'), path.join(compose, '.env'));
      const [c, k] = await Promise.all([composeTable(compose, 'traefik'), kubernetesTable(kube)]);
      assertAgree(c, k);
      fs.rmSync(kube, { recursive: true, force: true });
      fs.rmSync(compose, { recursive: true, force: true });
    });
  }
});

/** Compose's and Swarm's tables for one request, with one .env. */
async function assertSwarmAgrees(request: Record<string, unknown>): Promise<void> {
  const swarm = fs.mkdtempSync(path.join(os.tmpdir(), 'sw-agree-swarm-'));
  const compose = fs.mkdtempSync(path.join(os.tmpdir(), 'sw-agree-compose-'));
  writeBundle(swarm, generator.generate({ ...request, deploymentType: 'swarm' } as any).files);
  writeBundle(compose, generator.generate(request as any).files);
  // one .env for both, its secrets filled as scripts/deploy.sh fills them
  await run('bash', ['-c', '. scripts/lib.sh; prepare_env'], swarm);
  fs.copyFileSync(path.join(swarm, '.env'), path.join(compose, '.env'));
  const [c, s] = await Promise.all([composeTable(compose, 'traefik', true), swarmTable(swarm)]);
  assertAgree(c, s);
  fs.rmSync(swarm, { recursive: true, force: true });
  fs.rmSync(compose, { recursive: true, force: true });
}

/** Services whose manifest names a file form (fileVariable) that no preset holds: the presets do not cover them. */
const inPresets = new Set([...catalogue.presets.values()].flatMap((p) => p.manifest.services));
const fileFormOnly = [...catalogue.services.values()]
  .filter((s) => !inPresets.has(s.id) && (s.manifest.environment ?? []).some((e) => e.fileVariable))
  .map((s) => s.id).sort();

describe('Compose and Swarm agree, per preset', { concurrency: 3 }, () => {
  for (const preset of allPresets) {
    test(preset, () => assertSwarmAgrees({ name: 'agree', preset, proxy: 'traefik', domain: 'example.com' }));
  }
  test(`the services with a file form that no preset holds (${fileFormOnly.join(', ')})`, () => {
    assert.ok(fileFormOnly.length > 0);
    return assertSwarmAgrees({ name: 'agree', services: fileFormOnly, proxy: 'traefik', domain: 'example.com' });
  });
});
