// The log as an operator's collector reads it: every line of a real process's output parsed as JSON, the
// request fields checked, the API key never written, and the terminal form for people.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { REPO_ROOT } from '../../src/config.js';
import { freePort, parseLogLine, spawnServer, stopServer, waitForOutput, type LogRecord, type ServerProcess } from '../support/process.js';

const KEY = 'log-test-Key-7Hq2Vx9Lm4Rt8Wz3Np6B';
const fingerprint = crypto.createHash('sha256').update(KEY).digest('hex').slice(0, 8);
const LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace'];

/** The request record with this id, once the process has logged it. */
async function requestRecord(server: ServerProcess, id: string): Promise<LogRecord> {
  for (let i = 0; i < 100; i++) {
    const found = server.records().find((r) => r.requestId === id && 'status' in r);
    if (found) return found;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`no request record with id ${id} in:\n${server.raw()}`);
}

describe('the log of a running service', () => {
  let server: ServerProcess;
  before(async () => {
    server = await spawnServer({ STACK_API_KEY: KEY, STACK_WATCH_CATALOGUE: '0', STACK_RATE_LIMIT_WRITE: '2' });
  });
  after(async () => {
    await stopServer(server);
  });

  test('every line is a JSON object with an ISO time, a level name and a message; the start names port and revision', () => {
    const lines = server.raw().split('\n').filter(Boolean);
    assert.ok(lines.length >= 4, server.raw());
    for (const line of lines) {
      const record = parseLogLine(line);
      assert.ok(LEVELS.includes(record.level), `level ${record.level}`);
      assert.ok(!Number.isNaN(Date.parse(record.time)) && record.time.endsWith('Z'), `time ${record.time}`);
    }
    const listening = server.records().find((r) => r.event === 'listening')!;
    assert.equal(listening.port, server.port);
    assert.match(String(server.records().find((r) => /^catalogue: /.test(r.msg))?.revision), /^[0-9a-f]{8,}$/);
  });

  test('a request is one line with its id, method, route pattern, status, duration, client and key fingerprint', async () => {
    const res = await fetch(`${server.url}/api/v1/presets/research-assistant?x=1`, { headers: { 'X-Request-Id': 'trace-42.a:b', Authorization: `Bearer ${KEY}` } });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('x-request-id'), 'trace-42.a:b', 'a sane incoming id is kept and sent back');
    const record = await requestRecord(server, 'trace-42.a:b');
    assert.equal(record.level, 'info');
    assert.equal(record.method, 'GET');
    assert.equal(record.route, '/api/v1/presets/:name', 'the route pattern, not the raw URL');
    assert.equal(record.status, 200);
    assert.equal(typeof record.durationMs, 'number');
    assert.ok((record.durationMs as number) >= 0);
    assert.equal(record.client, '127.0.0.1');
    assert.equal(record.key, fingerprint);
  });

  test('an id that is too long or holds unsafe characters is replaced by a new one, and every answer carries one', async () => {
    for (const sent of ['x'.repeat(129), 'a b', 'id"}{', 'line\\nbreak', '']) {
      const res = await fetch(`${server.url}/livez`, { headers: { 'X-Request-Id': sent } });
      const id = res.headers.get('x-request-id')!;
      assert.match(id, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/, `for ${JSON.stringify(sent)}: ${id}`);
      assert.equal((await requestRecord(server, id)).route, '/livez');
    }
    const answers = [
      await fetch(`${server.url}/nowhere`),
      await fetch(`${server.url}/api/v1/validate`, { method: 'POST', body: '{}', headers: { 'Content-Type': 'application/json' } }),
      await fetch(`${server.url}/`),
    ];
    assert.deepEqual(answers.map((r) => r.status), [404, 401, 200]);
    for (const res of answers) assert.ok(res.headers.get('x-request-id'), `${res.url} has X-Request-Id`);
    assert.equal((await requestRecord(server, answers[0].headers.get('x-request-id')!)).route, 'unmatched');
    assert.equal((await requestRecord(server, answers[1].headers.get('x-request-id')!)).status, 401);
  });

  test('a rate-limited request is logged 429 with the route; the key never appears in the output, right or wrong', async () => {
    const wrong = 'wrong-Key-For-Logging-Zq8Xv3Bn7Mp2Lk5';
    const post = (key: string) => fetch(`${server.url}/api/v1/validate`, { method: 'POST', headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' }, body: JSON.stringify({ preset: 'research-assistant' }) });
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await post(KEY)).status);
    assert.deepEqual(statuses, [200, 200, 429]);
    const wrongAnswer = await post(wrong);
    const limited = await requestRecord(server, wrongAnswer.headers.get('x-request-id')!);
    assert.equal(limited.status, 401);
    assert.equal(limited.key, undefined, 'no fingerprint for a key that matched none');
    const rejected = server.records().filter((r) => r.route === '/api/v1/validate' && r.status === 429);
    assert.equal(rejected.length, 1);
    assert.equal(rejected[0].key, fingerprint);
    assert.ok(!server.raw().includes(KEY), 'the configured key is never written');
    assert.ok(!server.raw().includes(wrong), 'a presented key is never written');
  });

  test('a reload logs the reason and the revision in force', async () => {
    const health = await (await fetch(`${server.url}/api/v1/health`)).json() as { data: { catalogue: { revision: string } } };
    const mark = server.output().length;
    server.child.kill('SIGHUP');
    await waitForOutput(server, /catalogue checked \(SIGHUP\)/, mark);
    const reload = server.records().find((r) => r.event === 'reload')!;
    assert.equal(reload.reason, 'SIGHUP');
    assert.equal(reload.revision, health.data.catalogue.revision);
    assert.equal(reload.changed, false);
  });
});

describe('log settings', () => {
  test('STACK_LOG_LEVEL=warn leaves out the info lines, requests included', async () => {
    const port = await freePort();
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(REPO_ROOT, 'src/main.ts')], {
      env: { ...process.env, PORT: String(port), STACK_API_KEY: KEY, STACK_WATCH_CATALOGUE: '0', STACK_LOG_LEVEL: 'warn' }, stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout!.on('data', (c: Buffer) => { out += c; });
    const exited = new Promise<number | null>((r) => child.once('exit', r));
    let status = 0;
    // the listening line is info, so the process's readiness is read from /livez instead
    for (let i = 0; i < 300 && status !== 200; i++) {
      status = await fetch(`http://127.0.0.1:${port}/livez`).then((r) => r.status, () => 0);
      if (status !== 200) await new Promise((r) => setTimeout(r, 50));
    }
    assert.equal(status, 200);
    assert.equal((await fetch(`http://127.0.0.1:${port}/api/v1/presets`)).status, 200);
    child.kill('SIGTERM');
    assert.equal(await exited, 0);
    const levels = out.split('\n').filter(Boolean).map((line) => parseLogLine(line).level);
    assert.deepEqual(levels.filter((l) => l !== 'warn' && l !== 'error'), [], out);
  });

  test('a wrong level stops the start with a message naming the setting and its values', () => {
    const run = spawnSync(process.execPath, ['--import', 'tsx', path.join(REPO_ROOT, 'src/main.ts')], { env: { ...process.env, PORT: '0', STACK_API_KEY: KEY, STACK_LOG_LEVEL: 'verbose' }, encoding: 'utf8', timeout: 20_000 });
    assert.equal(run.status, 2);
    const record = parseLogLine(run.stdout.trim().split('\n').at(-1)!);
    assert.equal(record.level, 'fatal');
    assert.match(record.msg, /STACK_LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent \(got "verbose"\)/);
  });

  test('STACK_LOG_FORMAT=pretty writes short human lines with the fields after the message', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(REPO_ROOT, 'src/main.ts')], {
      env: { ...process.env, PORT: '0', STACK_API_KEY: KEY, STACK_WATCH_CATALOGUE: '0', STACK_LOG_FORMAT: 'pretty', NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'],
    });
    const text = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout!.on('data', (c: Buffer) => { out += c; if (/listening on.*\n/.test(out)) resolve(out); });
      child.once('exit', (code) => reject(new Error(`exited ${code}: ${out}`)));
    });
    child.kill('SIGTERM');
    assert.match(text, /^\d\d:\d\d:\d\d\.\d{3} INFO {2}Stackwright \S+ listening on http:\/\/127\.0\.0\.1:\d+\/api\/v1 .*  event=listening version=\S+ host=127\.0\.0\.1 port=\d+$/m);
    assert.ok(!text.split('\n').some((line) => line.startsWith('{')), 'no JSON line');
    assert.ok(!text.includes(KEY));
  });
});
