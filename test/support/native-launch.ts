// A framework installed natively (bare metal) as its unit would run it, taken from the generated files: the
// launcher native/<id>.sh writes (a quoted heredoc), the unit's environment file native/<id>.sh writes from
// .env, and the scripts install.ps1 writes on Windows (PowerShell here-strings), checked by the shared
// validators' PowerShell parser. For the native cases beside each framework's container tests (issue 35).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { VALIDATORS_DIR } from './validators.js';
import type { Generator } from '../../src/pipeline/generate.js';
import { envPrefix } from '../../src/model/env-names.js';
import { run, type ServerStub } from './agents.js';
import { shippedCatalogue } from './server.js';

export interface ModelServerCase { id: string; prefix: string; keyed: boolean; embed: boolean }

/** The model servers other than Ollama a framework is wired to (its firstRun.localModels), as the catalogue describes them. */
export function wiredModelServers(frameworkId: string): ModelServerCase[] {
  const catalogue = shippedCatalogue();
  return (catalogue.frameworks.get(frameworkId)!.manifest.firstRun.localModels ?? []).filter((id) => id !== 'ollama').map((id) => {
    const spec = catalogue.services.get(id)!.manifest.modelServer!;
    return { id, prefix: envPrefix(id), keyed: Boolean(spec.apiKey), embed: Boolean(spec.embedModel) };
  });
}

/** The value .env.example gives a variable (a model server's default model, say). */
export function exampleValue(files: Record<string, string>, variable: string): string {
  const line = new RegExp(`^${variable}=(.*)$`, 'm').exec(files['.env.example']);
  assert.ok(line && line[1], `.env.example gives ${variable} no value`);
  return line[1];
}

/** Asks the server at `base` (an OpenAI-compatible /v1) with `key` for its models, as a client configured so would; true when `model` is listed. */
export async function serves(base: string, key: string, model: string): Promise<boolean> {
  const res = await fetch(`${base}/models`, { headers: { authorization: `Bearer ${key}` } });
  assert.equal(res.status, 200, `${base}/models with the configured key: ${res.status}`);
  return ((await res.json()) as { data: { id: string }[] }).data.some((m) => m.id === model);
}

/** The body of a quoted heredoc `<<'<tag>'` in a generated script. */
export function heredoc(script: string, tag: string): string {
  const start = script.indexOf(`<<'${tag}'\n`);
  assert.ok(start > 0, `no ${tag} heredoc`);
  const body = script.slice(script.indexOf('\n', start) + 1);
  return body.slice(0, body.indexOf(`\n${tag}\n`) + 1);
}

/** The .env key native/<id>.sh reads for the unit variable `name` (the first env_value of its env_line). */
export function dotenvKeyOf(native: string, name: string): string {
  const key = new RegExp(`^\\s*env_line ${name} .*?\\$\\(env_value (\\w+)`, 'm').exec(native)?.[1];
  assert.ok(key, `native script without ${name} from .env`);
  return key;
}

/**
 * The unit's environment as native/<id>.sh writes it: its env_line block run with the bundle's scripts/lib.sh
 * against a .env that is .env.example with `dotenv` after it (the last line of a key wins, as env_value reads
 * it), read back as the unit's EnvironmentFile (KEY="value", lib.sh's escapes undone). `home` is the state folder
 * (a new temporary one when not given).
 */
export async function unitEnvironment(files: Record<string, string>, id: string, dotenv: Record<string, string>, home?: string): Promise<Record<string, string>> {
  const native = files[`native/${id}.sh`];
  const block = /\n\s*\{\n((?:\s*env_line .*\n)+)\s*\} > "\$env_file"\n/.exec(native)?.[1];
  assert.ok(block, `no environment block in native/${id}.sh`);
  const scratch = home === undefined ? fs.mkdtempSync(path.join(os.tmpdir(), `stackwright-unit-${id}-`)) : undefined;
  home ??= path.join(scratch!, 'state');
  const dir = fs.mkdtempSync(path.join(path.dirname(home), 'bundle-'));
  fs.mkdirSync(path.join(dir, 'scripts'));
  fs.writeFileSync(path.join(dir, 'scripts', 'lib.sh'), files['scripts/lib.sh']);
  fs.writeFileSync(path.join(dir, '.env'), `${files['.env.example']}\n${Object.entries(dotenv).map(([k, v]) => `${k}=${v}\n`).join('')}`);
  const res = await run('bash', ['-c', `set -euo pipefail\n. scripts/lib.sh\nstate_dir=$1\n${block}`, 'env', home], { cwd: dir, env: { PATH: process.env.PATH } });
  assert.equal(res.code, 0, res.stderr);
  const env: Record<string, string> = {};
  for (const line of res.stdout.split('\n').filter(Boolean)) {
    const m = /^(\w+)="(.*)"$/.exec(line);
    assert.ok(m, `not an environment line: ${line}`);
    env[m[1]] = m[2].replace(/\\([\\"$`])/g, '$1');
  }
  if (scratch) fs.rmSync(scratch, { recursive: true, force: true });
  return env;
}

/** The script install.ps1 writes to `name` (a literal here-string piped to Set-Content). */
export function psWritten(ps1: string, name: string): string {
  // a here-string ends at the first line starting '@, so the body never crosses one
  const m = new RegExp(`@'\\n((?:(?!\\n'@)[\\s\\S])*)\\n'@ \\| Set-Content [^\\n]*'${name.replace(/[.]/g, '\\.')}'\\)`).exec(ps1);
  assert.ok(m, `install.ps1 writes no ${name}`);
  return m[1];
}

/** Parses PowerShell scripts with the shared validators' tree-sitter parser; fails the test with its report. */
export async function assertPowerShellParses(scripts: Record<string, string>, dir: string): Promise<void> {
  const parser = path.join(VALIDATORS_DIR, 'lib', 'ps1-syntax.mjs');
  assert.ok(fs.existsSync(parser), `the PowerShell parser is missing (${parser}): run npm run setup:test-tools`);
  const paths = Object.entries(scripts).map(([name, text]) => {
    const file = path.join(dir, name);
    fs.writeFileSync(file, text);
    return file;
  });
  const res = await run(process.execPath, [parser, ...paths], { env: process.env });
  assert.equal(res.code, 0, `${res.stdout}${res.stderr}`);
}

/**
 * A bare-metal stack holding `framework` and the stubbed servers (no cloud key), and its unit's environment as a user's
 * .env gives it: each server's published port the stub's, its key the stub's (under the .env keys native/<id>.sh
 * reads), then `dotenv`. `home` (the unit's HOME) is `opts.home` (a later start) or a new folder under `root`.
 */
export async function bareMetalStack(generator: Generator, opts: { name: string; framework: string; servers: ServerStub[]; dotenv?: Record<string, string>; root: string; home?: string }) {
  const { files } = generator.generate({ name: opts.name, primaryFramework: opts.framework, services: opts.servers.map((s) => s.server.id), deploymentType: 'bare-metal' });
  const native = files[`native/${opts.framework}.sh`];
  const home = opts.home ?? fs.mkdtempSync(path.join(opts.root, 'home-'));
  const dotenv: Record<string, string> = {};
  for (const { server, port, key } of opts.servers) {
    dotenv[dotenvKeyOf(native, `${server.prefix}_URL`)] = port;
    if (server.keyed) dotenv[dotenvKeyOf(native, `${server.prefix}_API_KEY`)] = key;
  }
  const env = await unitEnvironment(files, opts.framework, { ...dotenv, ...opts.dotenv }, home);
  return { files, native, home, env };
}
