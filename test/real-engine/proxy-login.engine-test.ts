// A new proxy password on the real engine. Caddy reads its login file only as it starts, so a password changed in
// .env reaches a running Caddy through start.sh's restart of it. That has to hold when the run that hashed the new
// password stopped before the restart (here a stopped service's host port that another program took, which start.sh
// refuses before `docker compose up`): the next run finds the login file newer than .env and hashes nothing, yet the
// Caddy that runs still has the old login. (A failure that recreates Caddy, such as a moved port of a service it
// depends on, would hide this: the new container reads the new file.) SearXNG's image is a stand-in here (it answers any request); Caddy is the real one.
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import { assertSucceeded, containerProblems, gatedStatuses, routeProblems } from './checks.js';
import { command, requireEngine } from './engine.js';
import { Stack } from './stack.js';

describe('a new proxy password on the engine', { concurrency: false }, () => {
  let stack: Stack;

  before(async () => {
    await requireEngine();
    // start.sh's port check sees a host program's port through ss (iproute2): without the real one it sees none
    assert.match((await command('ss', ['-V'])).stdout, /iproute2/, 'the real ss (iproute2) is needed: npm run setup:test-tools installs it');
    stack = await Stack.generate({ name: 'e2e-login', primaryFramework: 'nanobot', services: ['searxng'], proxy: 'caddy' });
    await stack.provideImages();
    stack.writeEnv({ OPENAI_API_KEY: 'sk-stackwright-engine-test' });
    assertSucceeded(await stack.script('start.sh'), 'start.sh');
  });
  after(async () => {
    await stack?.remove();
  });

  test('reaches the running Caddy on the next start.sh after a run that hashed it and stopped before the restart', async () => {
    assert.deepEqual(await routeProblems(stack), []);
    const user = stack.env('STACK_PROXY_USER') ?? 'admin';
    const oldPassword = stack.env('STACK_PROXY_PASSWORD')!;
    assert.ok(oldPassword, 'start.sh filled in a proxy password');
    assert.ok((await gatedStatuses(stack, user, oldPassword)).length > 0, 'the stack has a route behind the proxy login');

    // SearXNG stopped and its host port held by another program meanwhile; the user sets a new password
    const portVariable = stack.read('.env').split('\n').find((l) => /^SEARXNG_PORT_\d+=/.test(l))!.split('=')[0];
    const taken = Number(stack.env(portVariable));
    assertSucceeded(await stack.compose(['stop', 'searxng']), 'docker compose stop searxng');
    const holder = net.createServer();
    await new Promise<void>((resolve, reject) => holder.once('error', reject).listen(taken, '127.0.0.1', resolve));
    const newPassword = 'a-new-proxy-password-from-the-user';
    stack.setEnv('STACK_PROXY_PASSWORD', newPassword);
    // start.sh hashes it, then refuses the taken port before `docker compose up`: Caddy runs on with the old login
    let refused;
    try {
      refused = await stack.script('start.sh');
    } finally {
      await new Promise((resolve) => holder.close(resolve));
    }
    assert.notEqual(refused.code, 0, refused.stdout);
    assert.match(refused.stderr, new RegExp(`host port ${taken}/tcp \\(${portVariable} in .env\\) is taken`));
    // the port is free again, .env as the user left it: the login file is newer than .env now
    const start = await stack.script('start.sh');
    assertSucceeded(start, 'start.sh once the port is free');
    assert.deepEqual(containerProblems(await stack.containers()), []);
    assert.deepEqual(await routeProblems(stack), [], 'the new password opens every gated route');
    assert.deepEqual([...new Set(await gatedStatuses(stack, user, oldPassword))], [401], 'the old password is refused');
  });
});
