// The service image without a Docker daemon: the runtime stage of the Dockerfile is rebuilt on disk
// (its COPY lines, a production install without dev dependencies, a fresh compile), started the way
// its CMD says as an unprivileged user, and probed with its own HEALTHCHECK command.
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { REPO_ROOT } from '../../src/config.js';
import { KEY } from '../support/keys.js';

const dockerfile = fs.readFileSync(path.join(REPO_ROOT, 'Dockerfile'), 'utf8');
const runtime = dockerfile.slice(dockerfile.lastIndexOf('\nFROM '));

function run(command: string, args: string[], cwd: string, env: Record<string, string> = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(command, args, { cwd, env: { ...process.env, ...env }, maxBuffer: 16 * 1024 * 1024, timeout: 240_000 }, (e, stdout, stderr) => (e ? reject(new Error(`${command} ${args.join(' ')}: ${e.message}\n${stdout}${stderr}`)) : resolve(stdout)));
  });
}

/** The JSON-array form of a Dockerfile instruction (CMD, HEALTHCHECK ... CMD). */
function execForm(line: string): string[] {
  return JSON.parse(line.slice(line.indexOf('[')));
}

describe('the service image (runtime stage, without Docker)', () => {
  let app: string;
  let child: ReturnType<typeof spawn> | undefined;
  const port = String(20000 + Math.floor(Math.random() * 20000));

  before(async () => {
    app = fs.mkdtempSync(path.join(os.tmpdir(), 'stackwright-image-'));
    // the build stage: compile into the image's dist/
    await run(process.execPath, [path.join(REPO_ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json', '--outDir', path.join(app, 'dist')], REPO_ROOT);
    // the runtime stage's COPY lines (from the build stage: dist and node_modules)
    for (const m of runtime.matchAll(/^COPY (--from=build )?(\S+) (\S+)$/gm)) {
      const [, fromBuild, source] = m;
      if (fromBuild) continue;
      fs.cpSync(path.join(REPO_ROOT, source), path.join(app, source), { recursive: true });
    }
    fs.copyFileSync(path.join(REPO_ROOT, 'package-lock.json'), path.join(app, 'package-lock.json'));
    await run('npm', ['ci', '--omit=dev', '--ignore-scripts', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error'], app);
    // what `npm run build` adds beside the compiled code: the precompiled schema validators
    await run(process.execPath, [path.join(REPO_ROOT, 'scripts/build-validators.mjs')], REPO_ROOT);
    fs.cpSync(path.join(REPO_ROOT, 'dist/validators'), path.join(app, 'dist/validators'), { recursive: true });
    fs.chmodSync(app, 0o755);
  });

  after(() => {
    child?.kill('SIGTERM');
  });

  test('has no dev dependency, runs as a non-root user and passes its own health check', async () => {
    assert.ok(!fs.existsSync(path.join(app, 'node_modules/typescript')), 'typescript is a dev dependency');
    assert.ok(!fs.existsSync(path.join(app, 'node_modules/tsx')), 'tsx is a dev dependency');
    assert.match(runtime, /^USER node$/m);
    const env = Object.fromEntries([...runtime.matchAll(/^\s*(?:ENV )?([A-Z_]+)=(\S+?)(?: \\)?$/gm)].map((m) => [m[1], m[2]]));
    assert.equal(env.HOST, '0.0.0.0');
    const cmd = execForm(/^CMD (.+)$/m.exec(runtime)![1]);
    const health = execForm(/HEALTHCHECK[^\n]*\\\n\s+CMD (.+)$/m.exec(runtime)![1]);
    assert.match(health.join(' '), /\/readyz/);

    // uid/gid 65534 (nobody) stands in for the image's `node` user; an unprivileged user either way
    const asUser = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : {};
    const started = new Promise<string>((resolve, reject) => {
      let output = '';
      child = spawn(process.execPath, cmd.slice(1), {
        cwd: app, ...asUser,
        env: { PATH: process.env.PATH ?? '', ...env, HOST: '127.0.0.1', PORT: port, STACK_API_KEY: KEY, STACK_CATALOGUE_CACHE: path.join(os.tmpdir(), `stackwright-image-cache-${port}.json`) },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      child.stdout!.on('data', (c: Buffer) => { output += c; if (/listening on/.test(output)) resolve(output); });
      child.stderr!.on('data', (c: Buffer) => { output += c; });
      child.once('exit', (code) => reject(new Error(`exited ${code}:\n${output}`)));
    });
    const log = await started;
    assert.match(log, /catalogue: \d+ services/);
    const probe = await new Promise<number | null>((resolve) => {
      const p = spawn(process.execPath, health.slice(1), { env: { PORT: port }, stdio: 'ignore' });
      p.once('exit', resolve);
    });
    assert.equal(probe, 0, 'the HEALTHCHECK command passes');
    const presets = await fetch(`http://127.0.0.1:${port}/api/v1/presets`);
    assert.equal(presets.status, 200);
  });

  test('has `stackwright` on its PATH: the package\'s bin, executable, linked into /usr/local/bin', async () => {
    const bin = (JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { bin: { stackwright: string } }).bin.stackwright;
    const link = /^RUN chmod 755 (\S+) && ln -s \/app\/(\S+) \/usr\/local\/bin\/stackwright$/m.exec(runtime);
    assert.ok(link, 'the runtime stage links the command');
    assert.deepEqual([link[1], link[2]], [bin, bin]);
    assert.ok(runtime.indexOf(link[0]) < runtime.indexOf('\nUSER node'), 'linked while still root');
    // the same link in a folder of our own, put first on PATH as /usr/local/bin is in the image
    const pathDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stackwright-path-'));
    fs.chmodSync(path.join(app, bin), 0o755);
    fs.symlinkSync(path.join(app, bin), path.join(pathDir, 'stackwright'));
    const help = await run('stackwright', ['--help'], os.tmpdir(), { PATH: `${pathDir}:${path.dirname(process.execPath)}:/usr/bin:/bin` });
    assert.match(help, /Usage: stackwright <command>/);
  });
});
