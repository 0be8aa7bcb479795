// Kubernetes pods on the real engine (issue 32): no API server can run here, so each preset's Kustomize base is
// rendered by kubectl 1.35 (its secrets filled by the bundle's own scripts/secrets.sh) and every Deployment's,
// StatefulSet's and Job's pod is started by pod-runner.ts from the rendered objects alone, with the docker flags
// the pod spec means (user, fsGroup, capabilities, no-new-privileges, read-only root, emptyDir as tmpfs, claims as
// empty volumes, the Secrets' values, memory limits), init containers first, then every probe run with its own
// period and failureThreshold. docs/testing.md says what this proves and what it does not.
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { kustomize } from '../support/kubernetes.js';
import { assertSucceeded } from './checks.js';
import { docker, requireEngine } from './engine.js';
import { provideImages } from './images.js';
import { planPods, PodRunner, type K8sObject, type PodResult } from './pod-runner.js';
import { shippedCatalogue, Stack } from './stack.js';
import { ciOrAll } from './tiers.js';

/** The provider key a user sets before the first start (OpenClaw needs one; no call reaches a provider). */
const PROVIDER_KEY = { OPENAI_API_KEY: 'sk-stackwright-engine-test' };

/** A preset, or (`services`) a stack of chosen services with the generic stand-in nanobot as its framework. */
const PRESETS: { preset: string; services?: string[]; ci: boolean; why: string }[] = [
  { preset: 'content-monitoring', ci: true, why: 'PostgreSQL StatefulSet with its Secret, setup Job, wait-for init container, real Miniflux migrating on it, a numeric user with fsGroup, /dev/shm as a Memory emptyDir' },
  { preset: 'home-automation', ci: false, why: 'real Mosquitto (uid 1883, fsGroup on its claim) and ntfy (NET_BIND_SERVICE), an init container waiting on the broker, command scripts' },
  { preset: 'team-chatops', ci: false, why: 'two PostgreSQL consumers (Mattermost, n8n) of one StatefulSet, four claims on one pod, Healthchecks on its own claim' },
  {
    preset: 'numeric-users',
    services: ['redis', 'rabbitmq', 'searxng', 'vectorchord', 'neo4j', 'playwright-server'],
    ci: false,
    why: 'the six images once named by user, now uid:gid: real Redis (999:1000) and RabbitMQ (999:999) writing to claims their fsGroup owns, the others as stand-ins under their numbers',
  },
];

before(async () => {
  await requireEngine();
});

for (const { preset, services, ci, why } of PRESETS) {
  describe(`Kubernetes pods of ${preset} on the engine: ${why}`, { concurrency: false, ...ciOrAll(ci) }, () => {
    let stack: Stack;
    let objects: K8sObject[];
    let runner: PodRunner;
    let results: PodResult[] = [];

    before(async () => {
      const members = services ? { services, primaryFramework: 'nanobot' } : { preset };
      stack = await Stack.generate({ name: `k8s-${preset}`.slice(0, 40), ...members, proxy: 'traefik', deploymentType: 'kubernetes' });
      stack.writeEnv(PROVIDER_KEY);
      assertSucceeded(await stack.script('secrets.sh'), 'scripts/secrets.sh');
      objects = await kustomize<K8sObject>(stack.dir);
    });
    after(async () => {
      await runner?.remove();
    });

    test('the rendered pods translate to docker run flags, every field understood', async () => {
      const options = { project: stack.project, filesDir: mkdtempSync(path.join(os.tmpdir(), 'stackwright-k8s-files-')) };
      const plan = planPods(objects, options);
      const workloads = objects.filter((o) => ['Deployment', 'StatefulSet', 'Job'].includes(o.kind));
      assert.equal(plan.pods.length, workloads.length);
      const images = [...new Set(plan.pods.flatMap((p) => [...p.init, ...p.containers].map((c) => c.image)))].sort();
      await provideImages(images, shippedCatalogue());
      runner = new PodRunner(plan, options);
      await runner.prepare();
    });

    test('every pod: init containers exit 0 in order, Jobs complete, containers pass their startup, readiness and liveness probes', async () => {
      assert.ok(runner, 'the plan was made');
      results = await runner.run();
      const table = results.map((r) => `${r.kind} ${r.pod}: init ${r.init.join(', ') || '-'}; ${r.jobAttempts !== undefined ? `completed on attempt ${r.jobAttempts}` : `probes ${r.probes.filter((p) => p.passed).length}/${r.probes.length}, restarts ${r.restarts}`}`);
      console.log(`${preset}:\n  ${table.join('\n  ')}`);
      assert.deepEqual(results.flatMap((r) => r.problems), []);
      for (const r of results.filter((x) => x.kind !== 'Job')) assert.ok(r.probes.length > 0 && r.probes.every((p) => p.passed), `${r.pod}: probes`);
      // the presets' frameworks wait for the services their skills use; the chosen services depend on nothing
      if (!services) assert.ok(results.some((r) => r.init.length > 0), 'some pod waits for a dependency');
    });
  });
}

/** A stack of chosen services with the generic nanobot, its secrets made by its own script, its base rendered. */
async function chosenServices(name: string, services: string[]): Promise<{ stack: Stack; objects: K8sObject[] }> {
  const stack = await Stack.generate({ name, services, primaryFramework: 'nanobot', proxy: 'traefik', deploymentType: 'kubernetes' });
  stack.writeEnv(PROVIDER_KEY);
  assertSucceeded(await stack.script('secrets.sh'), 'scripts/secrets.sh');
  return { stack, objects: await kustomize<K8sObject>(stack.dir) };
}

/** Every pod of `list` run under `project` (images provided first); the runner joins `runners`, for removal after. */
async function runPods(project: string, list: K8sObject[], runners: PodRunner[]): Promise<PodResult[]> {
  const options = { project, filesDir: mkdtempSync(path.join(os.tmpdir(), 'stackwright-k8s-files-')) };
  const plan = planPods(list, options);
  await provideImages([...new Set(plan.pods.flatMap((p) => [...p.init, ...p.containers].map((c) => c.image)))].sort(), shippedCatalogue());
  const runner = new PodRunner(plan, options);
  runners.push(runner);
  await runner.prepare();
  return runner.run();
}

// Issue-free fix found in the VOLUME audit: a volume over a folder whose files the image ships (seed: true) is filled
// by an init container on Kubernetes, whose claims start empty; Docker fills a new named volume itself. The stand-ins
// of these images refuse to start without those files, so the run without the init containers must fail.
describe('Kubernetes: seeded claims start with the files the image ships (postfix-relay /etc/postfix, memgraph /etc/memgraph)', { concurrency: false, ...ciOrAll(true) }, () => {
  let stack: Stack;
  let objects: K8sObject[];
  const runners: PodRunner[] = [];
  const seeded = (o: K8sObject) => (o.spec?.template?.spec?.initContainers ?? []).filter((c: { name: string }) => c.name.startsWith('seed-'));

  before(async () => {
    ({ stack, objects } = await chosenServices('k8s-seeded', ['postfix-relay', 'memgraph']));
  });
  after(async () => {
    for (const r of runners) await r.remove();
  });
  const run = (project: string, list: K8sObject[]) => runPods(project, list, runners);

  test('each seeded claim is filled by its init container, and the pods pass their probes', async () => {
    const holders = objects.filter((o) => seeded(o).length).map((o) => `${o.metadata.name}: ${seeded(o).map((c: { name: string }) => c.name).join(', ')}`).sort();
    assert.deepEqual(holders, ['memgraph: seed-config', 'postfix-relay: seed-config']);
    const results = await run(stack.project, objects);
    assert.deepEqual(results.flatMap((r) => r.problems), []);
    for (const id of ['postfix-relay', 'memgraph']) {
      const r = results.find((x) => x.pod === id)!;
      assert.ok(r.init.includes('seed-config'), `${id}: the seed container ran (${r.init.join(', ')})`);
      assert.ok(r.probes.length > 0 && r.probes.every((p) => p.passed), `${id}: probes`);
    }
  });

  test('without the seed init containers the same pods do not start (the claims lack the image files)', async () => {
    const stripped = structuredClone(objects).map((o) => {
      const spec = o.spec?.template?.spec;
      if (spec?.initContainers) {
        spec.initContainers = spec.initContainers.filter((c: { name: string }) => !c.name.startsWith('seed-'));
        if (!spec.initContainers.length) delete spec.initContainers;
      }
      return o;
    });
    const results = await run(`${stack.project}-unseeded`, stripped);
    for (const id of ['postfix-relay', 'memgraph']) {
      const r = results.find((x) => x.pod === id)!;
      // the stand-in's own words: the claim lacks what the image ships (not some other failure)
      assert.match(r.problems.join('\n'), /lacks the files the image ships there/, `${id} started on an empty claim: ${JSON.stringify(r)}`);
    }
  });
});

// A claim starts root-owned and empty, where Docker fills a new volume from the image's folder, owner included: an
// image that starts as its own user (imageUser) writes its claims only through the group the pod gives them
// (fsGroup). Prometheus and Alertmanager are the real programs as nobody (65534:65534); the stand-ins of Grafana (472:0,
// a user whose group is root's: the claim goes to 472) and Loki (10001:10001) check they can write as those users.
// Without fsGroup the same pods must fail to write.
describe('Kubernetes: images that start as their own user write to their claims (fsGroup from imageUser)', { concurrency: false, ...ciOrAll(true) }, () => {
  const ids = ['grafana', 'prometheus', 'alertmanager', 'loki'];
  let stack: Stack;
  let objects: K8sObject[];
  const runners: PodRunner[] = [];
  const podOf = (list: K8sObject[], id: string) => list.find((o) => ['Deployment', 'StatefulSet'].includes(o.kind) && o.metadata.name === id)!.spec!.template.spec;

  before(async () => {
    ({ stack, objects } = await chosenServices('k8s-image-users', ids));
  });
  after(async () => {
    for (const r of runners) await r.remove();
  });
  const run = (project: string, list: K8sObject[]) => runPods(project, list, runners);

  test('each pod runs as its image\'s user, its claims go to that user\'s group, and the pods pass their probes', async () => {
    const catalogue = shippedCatalogue();
    for (const id of ids) {
      const [uid, gid] = catalogue.services.get(id)!.manifest.imageUser!.split(':').map(Number);
      const pod = podOf(objects, id);
      assert.deepEqual([pod.containers[0].securityContext.runAsUser, pod.securityContext.fsGroup, pod.securityContext.fsGroupChangePolicy], [uid, gid || uid, 'OnRootMismatch'], id);
    }
    const results = await run(stack.project, objects);
    assert.deepEqual(results.flatMap((r) => r.problems), []);
    for (const id of ids) {
      const r = results.find((x) => x.pod === id)!;
      assert.ok(r.probes.length > 0 && r.probes.every((p) => p.passed), `${id}: probes`);
      assert.equal(r.restarts, 0, `${id}: restarts`);
    }
  });

  // Alertmanager is left out here: it writes its state (silences, notification log) only at its 15-minute maintenance
  // and at shutdown, so it starts on a claim it cannot write and would fail later, not within a probe's time; Grafana
  // waits for Prometheus, so it never gets to its claim
  test('without fsGroup the same pods cannot write to their claims (Prometheus at start, Loki\'s stand-in)', async () => {
    const stripped = structuredClone(objects).map((o) => {
      const psc = o.spec?.template?.spec?.securityContext;
      if (psc) {
        delete psc.fsGroup;
        delete psc.fsGroupChangePolicy;
      }
      return o;
    });
    const results = await run(`${stack.project}-nogroup`, stripped);
    for (const id of ['prometheus', 'loki']) {
      const r = results.find((x) => x.pod === id)!;
      // it ends at once: a probe can still pass in a restart's first moment, so its ends are counted, not its probes
      assert.ok(r.problems.length > 0 || r.restarts > 0, `${id} ran on a root-owned claim: ${JSON.stringify(r)}`);
      const logs = await docker(['logs', `${stack.project}-nogroup-${id}-${id}`]);
      assert.match(`${r.problems.join('\n')}\n${logs.stdout}${logs.stderr}`, /permission denied|cannot write/i, `${id}: not the claim's owner at fault`);
    }
  });
});
