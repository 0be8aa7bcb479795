// STACK_API_KEY must be hard to guess (issue 24): a short key, or one of a few characters repeated, stops
// the start with a message that says how to make a good one (a fatal log record), and never prints the key.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { describe, test } from 'node:test';
import { REPO_ROOT } from '../../src/config.js';
import { logText, spawnServer, stopServer } from '../support/process.js';

/** Starts the service with this STACK_API_KEY and waits for it to exit (a weak key never listens). */
function startWithKey(key: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile(process.execPath, ['--import', 'tsx', path.join(REPO_ROOT, 'src/main.ts')], {
      env: { ...process.env, PORT: '0', STACK_WATCH_CATALOGUE: '0', STACK_API_KEY: key },
    }, (_e, stdout, stderr) => resolve({ code: child.exitCode, stdout, stderr }));
  });
}

describe('STACK_API_KEY strength', () => {
  test('the docs\' placeholder "..." is refused at start: exit 2, the length rule and how to make a key', async () => {
    const run = await startWithKey('...');
    assert.equal(run.code, 2, run.stdout + run.stderr);
    assert.match(logText(run.stdout) + run.stderr, /configuration error: STACK_API_KEY holds a key that is too easy to guess \(3 characters; at least 24 are needed\)/);
    assert.match(logText(run.stdout) + run.stderr, /openssl rand -hex 24/);
    assert.match(logText(run.stdout) + run.stderr, /node -e "console\.log\(require\('node:crypto'\)\.randomBytes\(24\)\.toString\('base64url'\)\)"/);
    assert.doesNotMatch(run.stdout, /listening/);
  });

  test('a long key of few different characters is refused, and the key itself is not printed', async () => {
    const key = 'abcdefghiabcdefghiabcdefghi';
    const run = await startWithKey(key);
    assert.equal(run.code, 2);
    assert.match(logText(run.stdout) + run.stderr, /too easy to guess \(only 9 different characters; at least 10 are needed\)/);
    assert.ok(!run.stderr.includes(key) && !run.stdout.includes(key), 'the weak key is not echoed');
  });

  test('with several keys (rotation) the weak one is named by its place', async () => {
    const run = await startWithKey('9f2c4e7a1b3d5f60a8c2e4f6b1d3,change-me');
    assert.equal(run.code, 2);
    assert.match(logText(run.stdout) + run.stderr, /too easy to guess \(key 2 of 2: 9 characters; at least 24 are needed\)/);
  });

  test('a key at the limits (24 characters, 10 different ones) is accepted', async () => {
    const key = 'abcdefghi-abcdefghi-abcd';
    const server = await spawnServer({ STACK_API_KEY: key, STACK_WATCH_CATALOGUE: '0' });
    try {
      const res = await fetch(`${server.url}/api/v1/validate`, {
        method: 'POST', headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' }, body: '{"preset":"research-assistant"}',
      });
      assert.equal(res.status, 200);
    } finally {
      await stopServer(server);
    }
  });
});
