// A native (bare-metal) part as its unit starts it, taken from a generated bundle: the environment file
// native/<id>.sh writes (its own env_line block, run with the bundle's lib.sh over a .env) and the text its
// install leaves behind (a quoted heredoc in the script). Shared by the native cases of test/agents.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { envPrefix } from '../../src/model/env-names.js';
import { run } from './agents.js';
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

/** The body of a quoted heredoc `<<'<tag>'` in a generated script (its first one). */
export function heredoc(script: string, tag: string): string {
  const start = script.indexOf(`<<'${tag}'\n`);
  assert.ok(start > 0, `no ${tag} heredoc`);
  const body = script.slice(script.indexOf('\n', start) + 1);
  return body.slice(0, body.indexOf(`\n${tag}\n`) + 1);
}

/** The .env key native/<id>.sh reads for a unit variable (the first one its env_line reads), e.g. LLAMA_CPP_URL -> LLAMA_CPP_PORT_8080. */
export function unitSource(files: Record<string, string>, id: string, variable: string): string {
  const line = new RegExp(`^\\s*env_line ${variable} [^\\n]*?\\$\\(env_value (\\w+)`, 'm').exec(files[`native/${id}.sh`]);
  assert.ok(line, `native/${id}.sh writes no ${variable} read from .env`);
  return line[1];
}

/**
 * The unit's environment as native/<id>.sh writes it: its env_line block run with the bundle's scripts/lib.sh
 * in a folder whose .env is the bundle's .env.example plus `dotenv` (later lines win, as env_value reads them),
 * parsed back from the KEY="value" lines (env_line's escapes undone).
 */
export async function unitEnvironment(files: Record<string, string>, id: string, dotenv: Record<string, string>): Promise<Record<string, string>> {
  const block = /\n {2}umask 077\n {2}\{\n([\s\S]*?)\n {2}\} > "\$env_file"\n/.exec(files[`native/${id}.sh`]);
  assert.ok(block, `native/${id}.sh has no environment block`);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `stackwright-unit-${id}-`));
  try {
    fs.mkdirSync(path.join(dir, 'scripts'));
    fs.writeFileSync(path.join(dir, 'scripts', 'lib.sh'), files['scripts/lib.sh']);
    fs.writeFileSync(path.join(dir, '.env'), `${files['.env.example']}\n${Object.entries(dotenv).map(([k, v]) => `${k}=${v}\n`).join('')}`);
    const res = await run('bash', ['-c', `set -euo pipefail\ncd ${JSON.stringify(dir)}\n. scripts/lib.sh\nstate_dir=${JSON.stringify(path.join(dir, 'state'))}\n${block[1]}`], { env: { PATH: process.env.PATH } });
    assert.equal(res.code, 0, res.stderr);
    return Object.fromEntries(res.stdout.trimEnd().split('\n').map((l) => {
      const m = /^(\w+)="(.*)"$/.exec(l);
      assert.ok(m, `not an env_line: ${l}`);
      return [m[1], m[2].replace(/\\([\\"$`])/g, '$1')];
    }));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** Asks the server at `base` (an OpenAI-compatible /v1) with `key` for its models, as a client configured so would; true when `model` is listed. */
export async function serves(base: string, key: string, model: string): Promise<boolean> {
  const res = await fetch(`${base}/models`, { headers: { authorization: `Bearer ${key}` } });
  assert.equal(res.status, 200, `${base}/models with the configured key: ${res.status}`);
  return ((await res.json()) as { data: { id: string }[] }).data.some((m) => m.id === model);
}
