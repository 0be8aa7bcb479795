// A stack with a domain behind Caddy, on the real engine: Caddy gets a certificate for every host name of the
// README from the ACME directory in STACK_ACME_CA (here Debian's Pebble, as a user would point it at Let's
// Encrypt staging or an internal CA), every route answers over HTTPS with the login it names, plain HTTP is
// sent to HTTPS, and the certificates are kept on the proxy's volume across a stop and a start.
//
// What the test adds to the generated stack is only what stands in for the public internet: a
// docker-compose.override.yml (which Compose reads beside docker-compose.yml) that lets Caddy resolve Pebble's
// name and trust Pebble's own HTTPS certificate. Pebble validates nothing, so port 80 being reachable from
// outside, which Let's Encrypt needs, is not proved here. Last, `scripts/backup.sh verify` starts a copy of the
// stack (its proxy too, on other ports): the copy must reach nothing outside itself (it runs what the backup
// restored: chat channels, scheduled jobs), ask the stack's CA for nothing, since a challenge for it could not
// pass where a real CA checks (at the stack's ports) and would count against the domain, and publish nothing beyond
// 127.0.0.1 (no one is meant to use it).
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import http from 'node:http';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import tls from 'node:tls';
import { after, before, describe, test } from 'node:test';
import { dump, load } from 'js-yaml';
import { HELPER_IMAGE } from '../../src/model/helper-image.js';
import { assertSucceeded, containerProblems, routeProblems } from './checks.js';
import { docker, requireEngine } from './engine.js';
import { Outside } from './outside.js';
import { Pebble, PEBBLE_HOST } from './pebble.js';
import { Stack } from './stack.js';

const DOMAIN = 'stack.example.test';
const CA_IN_CONTAINER = '/etc/stackwright-test/pebble-tls-ca.pem';

/** The certificate the proxy on this machine serves for a host name, checked against the given root. */
function servedCertificate(host: string, root: string): Promise<{ fingerprint: string; issuer: string } | { error: string }> {
  return new Promise((resolve) => {
    const socket = tls.connect({ host: '127.0.0.1', port: 443, servername: host, ca: root, timeout: 10_000 }, () => {
      const cert = socket.getPeerX509Certificate() as X509Certificate;
      resolve({ fingerprint: cert.fingerprint256, issuer: cert.issuer });
      socket.end();
    });
    socket.on('timeout', () => socket.destroy(new Error('timed out')));
    socket.on('error', (e) => resolve({ error: e.message }));
  });
}

/**
 * What to read when no certificate came: Caddy's log lines about certificates and ACME, Pebble's log, and
 * whether Pebble still runs (a failure here says where issuance stopped, not only that it did).
 */
async function issuanceTrail(stack: Stack, pebble: Pebble): Promise<string> {
  const logs = await stack.compose(['logs', '--no-color', '--no-log-prefix', 'caddy']);
  // Compose's terminal sequences taken out of the lines
  const caddy = (logs.stdout + logs.stderr).replace(/\x1b\[[0-9;]*[A-Za-z]/g, '').split('\n').filter((l) => /acme|certificate|obtain|tls|error/i.test(l)).slice(-30);
  // the path Caddy's ACME client takes, tried from inside its container
  const reach = await stack.compose(['exec', '-T', 'caddy', 'wget', '-q', '-O', '-', '--ca-certificate', CA_IN_CONTAINER, pebble.directory]);
  return [
    `Pebble ${pebble.running() ? 'runs' : 'has exited'}; its directory from the caddy container: ${reach.code === 0 ? 'answers' : `exit ${reach.code}: ${reach.stderr.trim()}`}`,
    "Pebble's log (last 30 lines):",
    ...pebble.log().split('\n').slice(-30),
    "Caddy's log about certificates (last 30 lines):",
    ...caddy,
  ].join('\n');
}

/** Waits (bounded, no timing asserted) until Caddy serves a Pebble-signed certificate for every host. */
async function certificatesFor(hosts: string[], root: string, trail: () => Promise<string>): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  let last = '';
  for (let i = 0; i < 90 && found.size < hosts.length; i++) {
    for (const host of hosts.filter((h) => !found.has(h))) {
      const served = await servedCertificate(host, root);
      if ('fingerprint' in served) found.set(host, served.fingerprint);
      else last = `${host}: ${served.error}`;
    }
    if (found.size < hosts.length) await new Promise((r) => setTimeout(r, 2000));
  }
  if (found.size < hosts.length) assert.fail(`no certificate from the ACME CA for every host (last: ${last})\n${await trail()}`);
  return found;
}

describe('a stack with a domain behind Caddy: certificates from the ACME CA in STACK_ACME_CA', { concurrency: false }, () => {
  let stack: Stack;
  let pebble: Pebble;
  let hosts: string[];
  let first: Map<string, string>;

  before(async () => {
    await requireEngine();
    pebble = await Pebble.start();
    stack = await Stack.generate({ name: 'e2e-https', services: ['n8n', 'postgresql'], proxy: 'caddy', domain: DOMAIN });
    await stack.provideImages();
    stack.writeEnv({ OPENAI_API_KEY: 'sk-stackwright-engine-test', STACK_ACME_CA: pebble.directory });
    const override = {
      services: {
        caddy: {
          extra_hosts: [`${PEBBLE_HOST}:host-gateway`],
          environment: { SSL_CERT_FILE: CA_IN_CONTAINER },
          volumes: [`${pebble.tlsCaFile}:${CA_IN_CONTAINER}:ro`],
        },
      },
    };
    writeFileSync(path.join(stack.dir, 'docker-compose.override.yml'), dump(override));
    hosts = [...new Set(stack.routes().map((r) => new URL(r.url).hostname))];
  });
  after(async () => {
    await stack?.remove();
    pebble?.stop();
  });

  test('scripts/start.sh exits 0 and every container is healthy', async () => {
    const start = await stack.script('start.sh');
    assertSucceeded(start, 'start.sh');
    assert.deepEqual(containerProblems(await stack.containers()), []);
  });

  test('Caddy serves a certificate from the ACME CA for every host name in the README', async () => {
    assert.ok(hosts.length >= 2, `the README lists routes on several host names: ${hosts.join(', ')}`);
    assert.ok(stack.routes().every((r) => r.url.startsWith('https://')), 'every route in the README is HTTPS');
    first = await certificatesFor(hosts, await pebble.root(), () => issuanceTrail(stack, pebble));
  });

  test('every route answers over HTTPS with the login the README names', async () => {
    assert.deepEqual(await routeProblems(stack, { ca: await pebble.root() }), []);
  });

  test('plain HTTP is redirected to HTTPS', async () => {
    const url = new URL(stack.routes()[0].url);
    const answer = await new Promise<{ status: number; location?: string }>((resolve, reject) => {
      http.get({ host: '127.0.0.1', port: 80, path: url.pathname, headers: { host: url.hostname } }, (res) => {
        res.resume();
        resolve({ status: res.statusCode ?? 0, location: res.headers.location });
      }).on('error', reject);
    });
    assert.ok([301, 302, 307, 308].includes(answer.status), `HTTP answered ${answer.status}`);
    assert.equal(answer.location, `https://${url.hostname}${url.pathname}`);
  });

  test('after stop.sh and start.sh the same certificates are served from the kept volume', async () => {
    assert.equal((await stack.script('stop.sh')).code, 0);
    const start = await stack.script('start.sh');
    assertSucceeded(start, 'the second start');
    assert.deepEqual(containerProblems(await stack.containers()), []);
    const again = await certificatesFor(hosts, await pebble.root(), () => issuanceTrail(stack, pebble));
    assert.deepEqual([...again], [...first]);
  });

  test('backup.sh verify reaches nothing outside its copy: the copy\'s proxy asks the ACME CA for no certificate (a host name added since the backup), a container of the copy cannot reach beyond this machine, and the copy is healthy', async () => {
    const backup = await stack.script('backup.sh');
    assertSucceeded(backup, 'backup.sh');
    const dir = readdirSync(path.join(stack.dir, 'backups')).filter((d) => /^\d{8}T/.test(d)).sort().at(-1)!;
    // a host name the backup's certificates do not cover (as when a service joins after the backup): a copy that
    // reaches the stack's CA orders a certificate for it at once
    const caddyfile = path.join(stack.dir, 'caddy', 'Caddyfile');
    const originalCaddyfile = readFileSync(caddyfile, 'utf8');
    writeFileSync(caddyfile, `${originalCaddyfile}\nverify-probe.${DOMAIN} {\n\trespond "probe"\n}\n`);
    // and a container of the user's own (the override is the copy's too) that calls a stand-in for the internet every
    // second with its project's name, as a chat channel or a scheduled workflow calls out; the running stack is not
    // started again here, so every call heard comes from the copy
    const outside = await Outside.start();
    const overrideFile = path.join(stack.dir, 'docker-compose.override.yml');
    const originalOverride = readFileSync(overrideFile, 'utf8');
    const override = load(originalOverride) as { services: Record<string, Record<string, unknown>>; networks?: Record<string, unknown> };
    override.services['egress-probe'] = {
      image: HELPER_IMAGE,
      environment: { FROM: '${COMPOSE_PROJECT_NAME}' },
      command: ['sh', '-c', `while :; do wget -q -O /dev/null -T 2 -t 1 "${outside.url('/')}$$FROM" || true; sleep 1; done`],
      networks: ['stack'],
    };
    // the user's override also puts the proxy, and a service of their own with a host port written as the stack writes
    // its own, on a network of theirs that is not internal: there Docker publishes what they map (on the stack network,
    // internal in the copy, it publishes nothing)
    override.networks = { ...override.networks, 'user-net': {} };
    override.services.caddy.networks = ['stack', 'user-net'];
    override.services['published-probe'] = {
      image: HELPER_IMAGE, command: ['sleep', '3600'], networks: ['user-net'], ports: ['${STACK_BIND_ADDRESS:-127.0.0.1}:${PROBE_PORT:-18999}:8080'],
    };
    writeFileSync(overrideFile, dump(override));
    // the user has opened the service ports to the network (.env, as the README says how); the copy's .env is made from it
    const envFile = path.join(stack.dir, '.env');
    const originalEnv = readFileSync(envFile, 'utf8');
    writeFileSync(envFile, originalEnv.replace(/^STACK_BIND_ADDRESS=.*$/m, 'STACK_BIND_ADDRESS=0.0.0.0'));
    const logged = pebble.log().length;
    // the host addresses the copy's containers publish on, read every half second while it runs: the stack opens its
    // proxy on every interface (a public domain), and its .env may open the service ports; the copy is for no one
    const published = new Set<string>();
    const seen = new Set<string>();
    let watching = true;
    const watcher = (async () => {
      while (watching) {
        const ps = await docker(['ps', '--filter', `label=com.docker.compose.project=${stack.project}-verify`, '--format', '{{.Names}} {{.Ports}}']);
        for (const line of ps.stdout.split('\n')) {
          const [name, ...ports] = line.trim().split(' ');
          if (name) seen.add(name);
          // "0.0.0.0:49153->80/tcp, :::49153->80/tcp, 127.0.0.1:49154->3000/tcp": the host side of each
          for (const port of ports.join(' ').split(', ')) if (port.includes('->')) published.add(`${name} ${port.split('->')[0]}`);
        }
        await new Promise((r) => setTimeout(r, 500));
      }
    })();
    // the stack's own proxy, on every interface (IPv4 and IPv6), as a public domain needs
    const liveProxy = await docker(['ps', '--filter', `label=com.docker.compose.project=${stack.project}`, '--filter', 'label=com.docker.compose.service=caddy', '--format', '{{.Ports}}']);
    assert.match(liveProxy.stdout, /(^|, )0\.0\.0\.0:443->443\/tcp/, liveProxy.stdout);
    try {
      const verify = await stack.script('backup.sh', ['verify', path.join('backups', dir)]);
      assertSucceeded(verify, 'backup.sh verify');
      assert.match(verify.stdout, /verified:/);
    } finally {
      watching = false;
      await watcher;
      writeFileSync(caddyfile, originalCaddyfile);
      writeFileSync(overrideFile, originalOverride);
      writeFileSync(envFile, originalEnv);
      await outside.stop();
    }
    const asked = pebble.log().slice(logged).split('\n').filter((line) => /order|new-acct|authz|chall|finalize|issued/i.test(line));
    assert.deepEqual(asked, [], 'what the copy asked of the ACME CA');
    assert.deepEqual(outside.heard(), [], 'what the copy\'s containers said to the stand-in for the internet');
    // every container of the copy seen running; those on the stack network alone published nothing; the two on the
    // user's network too published on 127.0.0.1 only, although the stack's .env opens its ports and its proxy listens
    // on every interface
    for (const service of ['caddy', 'openclaw', 'n8n', 'postgresql', 'published-probe']) {
      assert.ok([...seen].some((n) => n.includes(`-${service}-`)), `the copy's ${service} was seen running: ${[...seen].join(', ')}`);
    }
    const publishers = [...new Set([...published].map((p) => p.split(' ')[0].replace(/^.*-verify-(.*)-\d+$/, '$1')))].sort();
    assert.deepEqual(publishers, ['caddy', 'published-probe'], [...published].join('; '));
    assert.deepEqual([...published].filter((p) => !/ 127\.0\.0\.1:\d+$/.test(p)), [], 'what the copy published beyond 127.0.0.1');
  });
});
