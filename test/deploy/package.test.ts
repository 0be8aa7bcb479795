// The package as npm packs it, started from the unpacked tarball; `npm start` stopped with SIGTERM; an
// empty plugins folder refused at start with one line that names it.
import assert from 'node:assert/strict';
import { execFile, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { before, describe, test } from 'node:test';
import { REPO_ROOT } from '../../src/config.js';
import { parseLogLine, type LogRecord } from '../support/process.js';

const KEY = 'package-test-Key-3Vb8Nm1Qa6Ws9Ed4Rf';

function run(command: string, args: string[], cwd: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(command, args, { cwd, maxBuffer: 64 * 1024 * 1024, timeout: 300_000 }, (e, stdout, stderr) => (e ? reject(new Error(`${command} ${args.join(' ')}: ${e.message}\n${stderr}`)) : resolve(stdout)));
  });
}

/** Starts a command that runs the service; resolves with its process and the listening record (lines that are not JSON, such as npm's banner, are skipped). */
function startService(command: string, args: string[], cwd: string, env: Record<string, string> = {}) {
  const child = spawn(command, args, { cwd, env: { ...process.env, PORT: '0', STACK_API_KEY: KEY, STACK_WATCH_CATALOGUE: '0', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const records: LogRecord[] = [];
  let output = '';
  const listening = new Promise<LogRecord>((resolve, reject) => {
    let pending = '';
    child.stdout!.on('data', (c: Buffer) => {
      output += c;
      const lines = (pending + c.toString()).split('\n');
      pending = lines.pop()!;
      for (const line of lines) {
        if (!line.startsWith('{')) continue;
        const record = parseLogLine(line);
        records.push(record);
        if (record.event === 'listening') resolve(record);
      }
    });
    child.stderr!.on('data', (c: Buffer) => { output += c; });
    child.once('exit', (code) => reject(new Error(`exited ${code} before listening:\n${output}`)));
  });
  return { child, listening, records };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('the npm package', () => {
  before(async () => {
    // the package carries the compiled service: build it where a bare `npm test` has not
    if (!fs.existsSync(path.join(REPO_ROOT, 'dist/main.js')) || !fs.existsSync(path.join(REPO_ROOT, 'dist/validators/generate-request.cjs'))) await run('npm', ['run', 'build', '--silent'], REPO_ROOT);
  });

  test('npm pack takes what runs and leaves out sources, tests, benchmarks, CI, screenshots and caches', async () => {
    const [packed] = JSON.parse(await run('npm', ['pack', '--dry-run', '--json', '--loglevel=error'], REPO_ROOT)) as { files: { path: string }[] }[];
    const files = packed.files.map((f) => f.path);
    for (const needed of ['package.json', 'LICENSE', 'README.md', 'dist/main.js', 'dist/cli/main.js', 'dist/validators/generate-request.cjs', 'dist/validators/service.cjs', 'catalogue/categories.yaml', 'schemas/service.schema.json', 'web/index.html', 'templates/README.md.eta', 'plugins/services/qdrant/service.yaml', 'contrib/stackwright.service', 'docs/deploy.md']) {
      assert.ok(files.includes(needed), `${needed} is packed`);
    }
    const unwanted = files.filter((f) => /^(src|test|bench|scripts|\.ci|node_modules)\//.test(f) || /\.(png|map|ts)$/.test(f) || /catalogue-cache\.json(\.shapes\/|\.inputs$|$)/.test(f) || /^(Dockerfile|compose\.yaml|tsconfig)/.test(f));
    assert.deepEqual(unwanted, []);
  });

  test('the packed service starts from the unpacked tarball and answers', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stackwright-pack-'));
    const [packed] = JSON.parse(await run('npm', ['pack', '--json', '--loglevel=error', '--pack-destination', dir], REPO_ROOT)) as { filename: string }[];
    await run('tar', ['-xzf', path.join(dir, packed.filename), '-C', dir], dir);
    const app = path.join(dir, 'package');
    // the dependencies as an install would bring them (the registry is not needed for that here)
    fs.symlinkSync(path.join(REPO_ROOT, 'node_modules'), path.join(app, 'node_modules'));
    const service = startService(process.execPath, ['dist/main.js'], app, { STACK_CATALOGUE_CACHE: path.join(dir, 'cache.json') });
    const listening = await service.listening;
    try {
      const presets = await fetch(`http://127.0.0.1:${listening.port}/api/v1/presets`);
      assert.equal(presets.status, 200);
      assert.equal((await fetch(`http://127.0.0.1:${listening.port}/`)).status, 200, 'the page and its assets are packed');
      const generated = await fetch(`http://127.0.0.1:${listening.port}/api/v1/generate`, { method: 'POST', headers: { Authorization: `Bearer ${KEY}`, 'Content-Type': 'application/json' }, body: JSON.stringify({ name: 'packed', preset: 'research-assistant', format: 'tar' }) });
      assert.equal(generated.status, 200, 'templates are packed');
      await generated.arrayBuffer();
    } finally {
      service.child.kill('SIGTERM');
    }
  });

  test('kill -TERM to npm start drains and stops the service', async () => {
    const service = startService('npm', ['start', '--silent'], REPO_ROOT, { STACK_CATALOGUE_CACHE: '' });
    const listening = await service.listening;
    const nodePid = Number(listening.pid);
    assert.ok(nodePid > 0 && nodePid !== service.child.pid);
    service.child.kill('SIGTERM');
    // a guard against a hung test, not a timing assertion: the drain takes about a second
    for (let i = 0; i < 300 && alive(nodePid); i++) await new Promise((r) => setTimeout(r, 50));
    assert.equal(alive(nodePid), false, 'the node process stopped');
    assert.ok(service.records.some((r) => r.event === 'draining' && r.signal === 'SIGTERM'), 'it drained first');
  });
});

describe('the plugins folder', () => {
  const start = (pluginsDir: string) => spawnSync(process.execPath, ['--import', 'tsx', path.join(REPO_ROOT, 'src/main.ts')], {
    env: { ...process.env, PORT: '0', STACK_API_KEY: KEY, STACK_PLUGINS_DIR: pluginsDir }, encoding: 'utf8', timeout: 30_000,
  });

  test('an empty one (a bind mount of a folder that did not exist) stops the start with one line naming it and how to fill it', () => {
    const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'stackwright-empty-plugins-'));
    const result = start(empty);
    assert.equal(result.status, 1);
    const records = result.stdout.trim().split('\n').map(parseLogLine);
    assert.equal(records.length, 1, result.stdout);
    assert.equal(records[0].level, 'fatal');
    assert.equal(records[0].dir, empty);
    assert.match(records[0].msg, new RegExp(`the plugins folder ${empty} is empty \\(no plugin folder under services/, frameworks/, proxies/, skills/\\)`));
    assert.match(records[0].msg, /docker run --rm --entrypoint tar stackwright -C \/app\/plugins -c \. \| tar -x -C my-plugins/);
  });

  test('a missing one is named too', () => {
    const missing = path.join(os.tmpdir(), `stackwright-no-such-folder-${process.pid}`);
    const result = start(missing);
    assert.equal(result.status, 1);
    assert.match(parseLogLine(result.stdout.trim()).msg, new RegExp(`the plugins folder ${missing} does not exist: set STACK_PLUGINS_DIR`));
  });
});
