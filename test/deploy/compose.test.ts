// compose.yaml read by Docker Compose v2's own parser (no daemon): several instances behind one proxy,
// with Redis, and no host port on the service so `--scale` needs no edit.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { REPO_ROOT } from '../../src/config.js';
import { composeV2, runWithoutDaemon } from '../support/compose.js';

interface Service { ports?: { published?: string; target: number; host_ip?: string }[]; expose?: string[]; container_name?: string; environment?: Record<string, string>; command?: string[]; read_only?: boolean; cap_drop?: string[] }

describe('compose.yaml', () => {
  test('scales: only the proxy publishes a port, it balances to the service by name, and limits are shared in Redis', async () => {
    const config = JSON.parse(await runWithoutDaemon([...composeV2(), '-f', 'compose.yaml', 'config', '--format', 'json'], REPO_ROOT, { STACK_API_KEY: 'compose-test-Key-8Hj3Kl6Mn9Bv2Cx5Zq' })) as { services: Record<string, Service> };
    const { stackwright, proxy, redis } = config.services;
    assert.ok(stackwright && proxy && redis);
    assert.equal(stackwright.ports, undefined, 'a fixed host port would stop --scale');
    assert.equal(stackwright.container_name, undefined, 'a fixed name would stop --scale');
    assert.deepEqual(stackwright.expose, ['8080']);
    assert.equal(stackwright.environment!.REDIS_URL, 'redis://redis:6379');
    assert.equal(proxy.ports?.length, 1);
    assert.equal(proxy.ports![0].host_ip, '127.0.0.1');
    assert.equal(proxy.ports![0].target, 8080);
    assert.deepEqual(proxy.command!.slice(proxy.command!.indexOf('--to'), proxy.command!.indexOf('--to') + 2), ['--to', 'stackwright:8080']);
    for (const [name, service] of Object.entries(config.services)) assert.deepEqual(service.cap_drop, ['ALL'], `${name} drops every capability`);
    assert.equal(stackwright.read_only, true);
    // the proxy's address is trusted, so limits count the real clients
    assert.ok(stackwright.environment!.STACK_TRUST_PROXY.split(',').length >= 1);
  });
});
