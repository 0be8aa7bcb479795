// Issue 35: the agent CLIs from npm at the catalogue's pins (OpenClaw, Codex, Claude Code), configured by the
// generated container start command of a stack holding one of llama.cpp, vLLM, SGLang, LocalAI or Xinference
// and no cloud key, answer a chat through test/stub-model/server.mjs answering as that server (its routes, its
// /v1/models, its API key). What is proven: the settings the start leaves point the real CLI at the server with
// the configured model and key, and the CLI speaks an API the server has. Not proven: the real servers.
// The same for the native (bare-metal) deployment: the launcher native/<id>.sh leaves (OpenClaw) or its install
// recipe (Codex, Claude Code, which configure the invoking user's CLI), run with the unit environment that
// native/<id>.sh writes from .env (the server's published port being the stub's), then the same chat. The
// Windows launchers (install.ps1) are parsed by the bundle validators' PowerShell parser, not run (no pwsh here).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import * as yaml from 'js-yaml';
import { readConfig } from '../../src/config.js';
import { Generator } from '../../src/pipeline/generate.js';
import { agentPackage, run, startStub, type StubServer, codexScratch, MODEL_SERVERS, type ModelServer } from '../support/agents.js';
import { heredoc } from '../support/native-launch.js';
import { shippedCatalogue } from '../support/server.js';
import { assertValidatorsInstalled, VALIDATORS_DIR } from '../support/validators.js';

const generator = new Generator(shippedCatalogue(), readConfig({}).templatesDir, 20);
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'stackwright-model-servers-'));
const stubs: StubServer[] = [];
after(async () => {
  for (const s of stubs) await s.stop();
  fs.rmSync(root, { recursive: true, force: true });
});

const SERVERS = MODEL_SERVERS;
type Server = ModelServer;

/** A stub answering as `server`, serving its default model, guarded by a key when the server has one. */
async function serverStub(server: Server) {
  const key = server.keyed ? `key-${server.id}-0123456789` : '';
  const stub = await startStub({ STUB_SERVER: server.id, STUB_API_KEY: key, STUB_MODELS: server.model });
  stubs.push(stub);
  return { stub, key };
}

/** The framework service of a generated stack with only `server` beside it: its script (Compose's $$ as $) and environment. */
function service(framework: string, server: Server) {
  const { files } = generator.generate({ name: `ms-${framework}-${server.id}`, primaryFramework: framework, services: [server.id] });
  const svc = (yaml.load(files['docker-compose.yml']) as { services: Record<string, { command: string[]; environment: Record<string, string> }> }).services[framework];
  return { files, script: svc.command[2].replaceAll('$$', '$'), environment: svc.environment };
}

/** The variables the container gets for the server, as .env fills them in (the stub's URL for the server's address). */
function serverEnv(server: Server, environment: Record<string, string>, url: string, key: string): Record<string, string> {
  assert.equal(environment[`${server.prefix}_MODEL`], `\${${server.prefix}_MODEL}`, 'the model comes from .env');
  if (server.keyed) assert.match(environment[`${server.prefix}_API_KEY`], /^\$\{[A-Z_]+_API_KEY\}$/, 'the server key is passed');
  else assert.equal(environment[`${server.prefix}_API_KEY`], undefined);
  return { [`${server.prefix}_URL`]: url, [`${server.prefix}_MODEL`]: server.model, ...(key ? { [`${server.prefix}_API_KEY`]: key } : {}) };
}

function idleless(script: string): string {
  const idle = 'sleep infinity &\nwait';
  assert.ok(script.includes(idle), 'the start command ends idling');
  return script.replace(idle, 'exit 0');
}

/** `claude -p` as a user whose home is `home` (only the env block of its settings.json wires it) answers through the stub. */
async function claudeAnswers(claude: string, home: string, server: Server, stub: StubServer, key: string) {
  const before = (await stub.requests()).length;
  const ask = await run(claude, ['-p', `hello ${server.id}`], {
    cwd: home, env: { PATH: process.env.PATH, HOME: home, DISABLE_AUTOUPDATER: '1', CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1' }, timeoutMs: 400_000,
  });
  assert.equal(ask.code, 0, `${ask.stdout}\n${ask.stderr}`);
  assert.ok(ask.stdout.includes(`STUB-OK ${server.model}: hello ${server.id}`), `${ask.stdout}\n${ask.stderr}`);
  const calls = (await stub.requests()).slice(before);
  const messages = server.id === 'xinference' ? '/anthropic/v1/messages' : '/v1/messages';
  assert.ok(calls.some((c) => c.path === messages && c.model === server.model && c.credential === (key || 'no-key')), JSON.stringify(calls));
}

describe('OpenClaw answers through each model server', () => {
  const cli = path.join(agentPackage('openclaw', 'openclaw'), 'openclaw.mjs');
  for (const server of SERVERS) {
    test(`${server.id}: the provider "local" on its /v1 with its model and key`, async () => {
      const { stub, key } = await serverStub(server);
      const home = fs.mkdtempSync(path.join(root, `openclaw-${server.id}-`));
      const { script, environment, files } = service('openclaw', server);
      assert.match(files['README.md'], new RegExp(`without a cloud key with the stack's [^\\n]*${server.prefix}_MODEL`));
      const configure = script.replaceAll('node /app/openclaw.mjs', `node ${cli}`);
      const cut = configure.slice(0, configure.indexOf(`exec node ${cli} gateway`));
      const env = { PATH: process.env.PATH, HOME: home, OPENCLAW_GATEWAY_TOKEN: 'a'.repeat(64), NO_COLOR: '1', ...serverEnv(server, environment, stub.url, key) };
      const res = await run('sh', ['-c', cut], { env });
      assert.equal(res.code, 0, res.stderr);
      const config = JSON.parse(fs.readFileSync(path.join(home, '.openclaw', 'openclaw.json'), 'utf8'));
      assert.equal(config.agents.defaults.model.primary, `local/${server.model}`);
      assert.equal(config.models.providers.local.baseUrl, `${stub.url}/v1`);
      assert.equal(config.models.providers.local.api, 'openai-completions');
      const before = (await stub.requests()).length;
      const chat = await run(process.execPath, [cli, 'agent', '--local', '--agent', 'main', '--message', `hello ${server.id}`, '--json', '--timeout', '240'], { env, timeoutMs: 400_000 });
      assert.equal(chat.code, 0, `${chat.stdout}\n${chat.stderr}`);
      assert.ok(chat.stdout.includes(`STUB-OK ${server.model}: `), `${chat.stdout}\n${chat.stderr}`);
      const calls = (await stub.requests()).slice(before);
      assert.ok(calls.some((c) => c.path === '/v1/chat/completions' && c.model === server.model && c.credential === (key || 'local-no-key')), JSON.stringify(calls));
    });
  }
});

describe('Codex answers through each model server with a Responses API', () => {
  const codexJs = path.join(agentPackage('@openai/codex', 'codex'), 'bin', 'codex.js');
  for (const server of SERVERS) {
    test(`${server.id}: ${server.id === 'xinference' ? 'not wired (no /v1/responses), and the README says why' : 'the provider stack-local on its Responses API'}`, async () => {
      const { stub, key } = await serverStub(server);
      const { script, environment, files } = service('codex', server);
      if (server.id === 'xinference') {
        assert.equal(environment.XINFERENCE_MODEL, undefined);
        assert.match(files['README.md'], /Codex cannot use Xinference: Codex 0\.169\.0 speaks only the Responses API/);
        assert.match(files['scripts/start.sh'], /note: no model provider key for Codex[^\n]*Codex cannot use Xinference/);
        return;
      }
      const base = fs.mkdtempSync(path.join(root, `codex-${server.id}-`));
      const { home, bin, codex } = codexScratch(base, codexJs);
      const local = idleless(script).replaceAll('/root/.npm-global/bin/codex', codex).replaceAll('/usr/local/bin/codex', path.join(bin, 'codex'))
        .replaceAll('/workspace', path.join(base, 'workspace')).replaceAll('/root', home);
      const env = { PATH: `${bin}:${process.env.PATH}`, HOME: home, ...serverEnv(server, environment, stub.url, key) };
      const res = await run('sh', ['-c', local], { env, timeoutMs: 120_000 });
      assert.equal(res.code, 0, `${res.stdout}\n${res.stderr}`);
      const cfg = fs.readFileSync(path.join(home, '.codex', 'config.toml'), 'utf8');
      assert.match(cfg, /^model_provider = "stack-local" # stackwright-ollama$/m, cfg);
      assert.ok(cfg.includes(`model = "${server.model}" # stackwright-ollama`), cfg);
      assert.ok(cfg.includes(`base_url = "${stub.url}/v1"\nwire_api = "responses"\nenv_key = "${server.prefix}_API_KEY"\n`), cfg);
      const before = (await stub.requests()).length;
      const ask = await run(process.execPath, [codexJs, 'exec', '--skip-git-repo-check', `hello ${server.id}`], { cwd: home, env, timeoutMs: 400_000 });
      assert.equal(ask.code, 0, `${ask.stdout}\n${ask.stderr}`);
      assert.ok(ask.stdout.includes(`STUB-OK ${server.model}: hello ${server.id}`), `${ask.stdout}\n${ask.stderr}`);
      const calls = (await stub.requests()).slice(before);
      assert.ok(calls.some((c) => c.path === '/v1/responses' && c.model === server.model && c.credential === key), JSON.stringify(calls));
    });
  }
});

describe('Claude Code answers through each model server\'s Anthropic Messages API', () => {
  agentPackage('@anthropic-ai/claude-code', 'claude-code');
  const platform = `@anthropic-ai/claude-code-${process.platform}-${process.arch === 'x64' ? 'x64' : 'arm64'}`;
  const claude = path.join(agentPackage(platform, 'claude-code', '@anthropic-ai/claude-code'), 'claude');
  for (const server of SERVERS) {
    test(`${server.id}: settings.json points Claude Code at it`, async () => {
      const { stub, key } = await serverStub(server);
      const base = fs.mkdtempSync(path.join(root, `claude-${server.id}-`));
      const home = path.join(base, 'root');
      const bin = path.join(base, 'bin');
      fs.mkdirSync(path.join(home, '.claude'), { recursive: true });
      fs.mkdirSync(bin);
      fs.writeFileSync(path.join(bin, 'npm'), '#!/bin/sh\nexit 0\n', { mode: 0o755 });
      const { script, environment } = service('claude-code', server);
      const local = idleless(script).replaceAll('/usr/local/bin/claude', path.join(bin, 'claude')).replaceAll('/workspace', path.join(base, 'workspace')).replaceAll('/root', home);
      const env = { PATH: `${bin}:${process.env.PATH}`, HOME: home, ...serverEnv(server, environment, stub.url, key) };
      const res = await run('sh', ['-c', local], { env, timeoutMs: 120_000 });
      assert.equal(res.code, 0, `${res.stdout}\n${res.stderr}`);
      const settings = JSON.parse(fs.readFileSync(path.join(home, '.claude', 'settings.json'), 'utf8'));
      const baseUrl = server.id === 'xinference' ? `${stub.url}/anthropic` : stub.url;
      assert.equal(settings.env.ANTHROPIC_BASE_URL, baseUrl);
      assert.equal(settings.env.ANTHROPIC_MODEL, server.model);
      // a session applies the env block of settings.json; the container's own variables are there too
      await claudeAnswers(claude, home, server, stub, key);
    });
  }
});

/**
 * A generated bare-metal stack of `framework` (native) with `servers` (containers), on disk with a .env that puts
 * each server's published port at its stub, its model and its key, plus `settings`; and the unit environment
 * native/<framework>.sh writes from that .env (its own env_line lines, lib.sh's env_value), with HOME the unit's
 * state folder; `others` are more services, without a stub. Its install.ps1 is parsed by the PowerShell parser.
 */
async function nativeStack(framework: string, servers: readonly Server[], settings: Record<string, string> = {}, others: string[] = []) {
  const ids = [...others, ...servers.map((s) => s.id)];
  const { files } = generator.generate({ name: `msn-${framework}-${ids.join('-')}`, primaryFramework: framework, services: ids, deploymentType: 'bare-metal' });
  const dir = fs.mkdtempSync(path.join(root, `native-${framework}-`));
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), text);
  }
  const installer = files[`native/${framework}.sh`];
  const values: Record<string, string> = { ...settings };
  const served = [];
  for (const server of servers) {
    const { stub, key } = await serverStub(server);
    const port = new RegExp(`env_line ${server.prefix}_URL http://127\\.0\\.0\\.1:"\\$\\(env_value (\\w+) \\d+\\)"`).exec(installer)?.[1];
    assert.ok(port, `native/${framework}.sh reaches ${server.id} on its published port`);
    values[port] = new URL(stub.url).port;
    values[`${server.prefix}_MODEL`] = server.model;
    if (server.keyed) {
      const keyVar = new RegExp(`env_line ${server.prefix}_API_KEY "\\$\\(env_value (\\w+)\\)"`).exec(installer)?.[1];
      assert.ok(keyVar, `native/${framework}.sh passes ${server.id}'s key`);
      values[keyVar] = key;
    }
    served.push({ server, stub, key });
  }
  const example = files['.env.example'].split('\n');
  for (const name of Object.keys(values)) assert.ok(example.some((l) => l.startsWith(`${name}=`)), `.env has ${name}`);
  fs.writeFileSync(path.join(dir, '.env'), example.map((l) => {
    const name = /^([A-Z0-9_]+)=/.exec(l)?.[1];
    return name && name in values ? `${name}=${values[name]}` : l;
  }).join('\n'));
  const block = /\n {2}umask 077\n {2}\{\n([\s\S]*?)\n {2}\} > "\$env_file"/.exec(installer)?.[1];
  assert.ok(block, `native/${framework}.sh writes the unit's environment`);
  const home = path.join(dir, 'state');
  fs.mkdirSync(home);
  const unit = path.join(dir, 'unit.env');
  const written = await run('bash', ['-c', `cd "$1" && . scripts/lib.sh && state_dir="$2" && {\n${block}\n} > "$3"`, 'unit-env', dir, home, unit]);
  assert.equal(written.code, 0, written.stderr);
  assertValidatorsInstalled();
  const parsed = await run(process.execPath, [path.join(VALIDATORS_DIR, 'lib', 'ps1-syntax.mjs'), 'install.ps1'], { cwd: dir });
  assert.equal(parsed.code, 0, `install.ps1 parses: ${parsed.stdout}${parsed.stderr}`);
  const unitEnv = Object.fromEntries(fs.readFileSync(unit, 'utf8').split('\n').filter(Boolean).map((l) => /^(\w+)="(.*)"$/.exec(l)!.slice(1, 3)));
  return { files, dir, installer, home, unit, unitEnv, served };
}

/** Runs `script` (bash) with the unit environment loaded, as systemd or native/<id>.sh gives it. */
function withUnit(unit: string, script: string, env: Record<string, string | undefined>, timeoutMs = 120_000) {
  return run('bash', ['-c', `set -a; . "$1"; set +a\n${script}`, 'native', unit], { env, timeoutMs });
}

/**
 * The install recipe of a per-user CLI (Codex, Claude Code) as native/<id>.sh runs it (as root, with the unit's
 * environment), for a user whose home is `cliHome` (getent answers with it), with `bin` first on PATH (npm stand-in).
 */
async function runRecipe(stack: Awaited<ReturnType<typeof nativeStack>>, bin: string, cliHome: string) {
  const recipe = /\ninstall_native\(\) \{\n([\s\S]*?)\n\}\n\(\n/.exec(stack.installer)?.[1];
  assert.ok(recipe, 'the install recipe');
  fs.writeFileSync(path.join(bin, 'getent'), `#!/bin/sh\nprintf '%s:x:%s:%s::%s:/bin/sh\\n' "$2" "$(id -u)" "$(id -g)" ${JSON.stringify(cliHome)}\n`, { mode: 0o755 });
  const user = os.userInfo().username;
  const res = await withUnit(stack.unit, `STACK_DIR="${stack.dir}"\n${recipe}`, { PATH: `${bin}:${path.dirname(process.execPath)}:${process.env.PATH}`, SUDO_USER: user });
  assert.equal(res.code, 0, `${res.stdout}\n${res.stderr}`);
  return res;
}

const [LLAMA, VLLM] = [SERVERS[0], SERVERS[1]];

describe('natively (bare metal), OpenClaw answers through each model server', () => {
  const cli = path.join(agentPackage('openclaw', 'openclaw'), 'openclaw.mjs');
  /** The launcher native/openclaw.sh leaves, run to just before it execs the gateway; openclaw.json it leaves. */
  async function launch(stack: Awaited<ReturnType<typeof nativeStack>>) {
    const bin = path.join(stack.dir, 'bin');
    fs.mkdirSync(bin);
    fs.writeFileSync(path.join(bin, 'openclaw'), `#!/bin/sh\nexec "${process.execPath}" "${cli}" "$@"\n`, { mode: 0o755 });
    const launcher = heredoc(stack.installer, 'LAUNCH');
    const gateway = launcher.indexOf('exec openclaw gateway');
    assert.ok(gateway > 0, 'the launcher ends in the gateway');
    const env = { PATH: `${bin}:${process.env.PATH}`, NO_COLOR: '1' };
    const res = await withUnit(stack.unit, launcher.slice(0, gateway), env);
    assert.equal(res.code, 0, res.stderr);
    return { env, config: JSON.parse(fs.readFileSync(path.join(stack.home, '.openclaw', 'openclaw.json'), 'utf8')) };
  }
  for (const server of SERVERS) {
    test(`${server.id}: the launcher registers the provider "local" on its /v1 with its model and key`, async () => {
      const stack = await nativeStack('openclaw', [server]);
      const [{ stub, key }] = stack.served;
      assert.match(stack.files['README.md'], new RegExp(`without a cloud key with the stack's [^\\n]*${server.prefix}_MODEL`));
      const { env, config } = await launch(stack);
      assert.equal(config.agents.defaults.model.primary, `local/${server.model}`);
      assert.equal(config.models.providers.local.baseUrl, `${stub.url}/v1`);
      assert.equal(config.models.providers.local.api, 'openai-completions');
      assert.equal(config.models.providers.local.apiKey, key || 'local-no-key');
      const before = (await stub.requests()).length;
      const chat = await withUnit(stack.unit, `exec openclaw agent --local --agent main --message "hello ${server.id}" --json --timeout 240`, env, 400_000);
      assert.equal(chat.code, 0, `${chat.stdout}\n${chat.stderr}`);
      assert.ok(chat.stdout.includes(`STUB-OK ${server.model}: `), `${chat.stdout}\n${chat.stderr}`);
      const calls = (await stub.requests()).slice(before);
      assert.ok(calls.some((c) => c.path === '/v1/chat/completions' && c.model === server.model && c.credential === (key || 'local-no-key')), JSON.stringify(calls));
    });
  }
  test('llama.cpp and vLLM: LOCAL_MODEL_SERVER=vllm picks vLLM', async () => {
    const stack = await nativeStack('openclaw', [LLAMA, VLLM], { LOCAL_MODEL_SERVER: 'vllm' });
    const { config } = await launch(stack);
    assert.equal(config.models.providers.local.baseUrl, `${stack.served[1].stub.url}/v1`);
    assert.equal(config.models.providers.local.apiKey, stack.served[1].key);
    assert.equal(config.agents.defaults.model.primary, `local/${VLLM.model}`);
    // the model part (from the provider keys to the gateway) is the container start command's own text
    const part = (script: string) => script.slice(script.indexOf('model=""\n'), script.indexOf('exec '));
    const native = part(heredoc(stack.installer, 'LAUNCH'));
    assert.match(native, /LOCAL_MODEL_SERVER[\s\S]*models: \{ providers: \{ local:/);
    assert.equal(native, part(service('openclaw', LLAMA).script));
  });
  test('Ollama (natively) beside llama.cpp: Ollama first, as the provider ollama on its own API', async () => {
    const stack = await nativeStack('openclaw', [LLAMA], {}, ['ollama']);
    const { config } = await launch(stack);
    assert.match(stack.unitEnv.OLLAMA_URL, /^http:\/\/[\d.]+:11434$/);
    assert.deepEqual(config.models.providers.ollama, { baseUrl: stack.unitEnv.OLLAMA_URL, api: 'ollama', apiKey: 'ollama-local', models: [{ id: 'qwen3:4b', name: 'qwen3:4b' }] });
    assert.equal(config.models.providers.local, undefined);
    assert.equal(config.agents.defaults.model.primary, 'ollama/qwen3:4b');
  });
});

describe('natively (bare metal), Codex answers through each model server with a Responses API', () => {
  const codexJs = path.join(agentPackage('@openai/codex', 'codex'), 'bin', 'codex.js');
  async function install(stack: Awaited<ReturnType<typeof nativeStack>>) {
    const { home, bin } = codexScratch(path.join(stack.dir, 'cli'), codexJs);
    await runRecipe(stack, bin, home);
    const file = path.join(home, '.codex', 'config.toml');
    return { home, bin, file, cfg: fs.readFileSync(file, 'utf8') };
  }
  for (const server of SERVERS) {
    test(`${server.id}: ${server.id === 'xinference' ? 'not wired (no /v1/responses), and the README says why' : 'the provider stack-local in the user\'s config.toml, its key as the bearer token'}`, async () => {
      const stack = await nativeStack('codex', [server]);
      const { home, bin, file, cfg } = await install(stack);
      if (server.id === 'xinference') {
        assert.doesNotMatch(cfg, /stack-local|model_provider/, cfg);
        assert.match(stack.files['README.md'], /Codex cannot use Xinference: Codex 0\.169\.0 speaks only the Responses API/);
        return;
      }
      const [{ stub, key }] = stack.served;
      assert.match(cfg, /^model_provider = "stack-local" # stackwright-ollama$/m, cfg);
      assert.ok(cfg.includes(`model = "${server.model}" # stackwright-ollama`), cfg);
      assert.ok(cfg.includes(`base_url = "${stub.url}/v1"\nwire_api = "responses"\nexperimental_bearer_token = "${key}"\n`), cfg);
      assert.equal(fs.statSync(file).mode & 0o777, 0o600, 'the key is the user\'s only');
      const before = (await stub.requests()).length;
      // the user's shell: no server variables, only the config.toml the recipe wrote
      const ask = await run(process.execPath, [codexJs, 'exec', '--skip-git-repo-check', `hello ${server.id}`], { cwd: home, env: { PATH: `${bin}:${process.env.PATH}`, HOME: home }, timeoutMs: 400_000 });
      assert.equal(ask.code, 0, `${ask.stdout}\n${ask.stderr}`);
      assert.ok(ask.stdout.includes(`STUB-OK ${server.model}: hello ${server.id}`), `${ask.stdout}\n${ask.stderr}`);
      const calls = (await stub.requests()).slice(before);
      assert.ok(calls.some((c) => c.path === '/v1/responses' && c.model === server.model && c.credential === key), JSON.stringify(calls));
    });
  }
  test('llama.cpp and vLLM: LOCAL_MODEL_SERVER=vllm picks vLLM, and a second run leaves one provider table', async () => {
    const stack = await nativeStack('codex', [LLAMA, VLLM], { LOCAL_MODEL_SERVER: 'vllm' });
    await install(stack);
    const { cfg } = await install(stack);
    assert.ok(cfg.includes(`base_url = "${stack.served[1].stub.url}/v1"\nwire_api = "responses"\nexperimental_bearer_token = "${stack.served[1].key}"\n`), cfg);
    assert.ok(cfg.includes(`model = "${VLLM.model}" # stackwright-ollama`), cfg);
    assert.equal(cfg.match(/\[model_providers\.stack-local\]/g)?.length, 1, cfg);
    assert.equal(cfg.match(/^model_provider = /gm)?.length, 1, cfg);
  });
  test('Ollama (natively) beside llama.cpp: Ollama first, as the provider stack-ollama', async () => {
    const stack = await nativeStack('codex', [LLAMA], {}, ['ollama']);
    const { cfg } = await install(stack);
    assert.match(cfg, /^model_provider = "stack-ollama" # stackwright-ollama\nmodel = "qwen3:4b" # stackwright-ollama$/m, cfg);
    assert.ok(cfg.includes(`[model_providers.stack-ollama]\n# the stack's Ollama: rewritten by native/codex.sh\nname = "Ollama (this stack)"\nbase_url = "${stack.unitEnv.OLLAMA_URL}/v1"\nwire_api = "responses"\n`), cfg);
    assert.doesNotMatch(cfg, /stack-local|experimental_bearer_token/, cfg);
  });
});

describe('natively (bare metal), Claude Code answers through each model server\'s Anthropic Messages API', () => {
  agentPackage('@anthropic-ai/claude-code', 'claude-code');
  const platform = `@anthropic-ai/claude-code-${process.platform}-${process.arch === 'x64' ? 'x64' : 'arm64'}`;
  const claude = path.join(agentPackage(platform, 'claude-code', '@anthropic-ai/claude-code'), 'claude');
  async function install(stack: Awaited<ReturnType<typeof nativeStack>>) {
    const home = path.join(stack.dir, 'user');
    const bin = path.join(stack.dir, 'bin');
    fs.mkdirSync(bin);
    fs.writeFileSync(path.join(bin, 'npm'), '#!/bin/sh\nexit 0\n', { mode: 0o755 });
    await runRecipe(stack, bin, home);
    const file = path.join(home, '.claude', 'settings.json');
    return { home, file, settings: JSON.parse(fs.readFileSync(file, 'utf8')) };
  }
  for (const server of SERVERS) {
    test(`${server.id}: the user's settings.json points Claude Code at it`, async () => {
      const stack = await nativeStack('claude-code', [server]);
      const [{ stub, key }] = stack.served;
      const { home, file, settings } = await install(stack);
      assert.equal(settings.env.ANTHROPIC_BASE_URL, server.id === 'xinference' ? `${stub.url}/anthropic` : stub.url);
      assert.equal(settings.env.ANTHROPIC_MODEL, server.model);
      assert.equal(settings.env.ANTHROPIC_AUTH_TOKEN, key || 'no-key');
      assert.equal(fs.statSync(file).mode & 0o777, 0o600, 'the key is the user\'s only');
      await claudeAnswers(claude, home, server, stub, key);
    });
  }
  test('llama.cpp and vLLM: LOCAL_MODEL_SERVER=vllm picks vLLM', async () => {
    const stack = await nativeStack('claude-code', [LLAMA, VLLM], { LOCAL_MODEL_SERVER: 'vllm' });
    const { settings } = await install(stack);
    assert.equal(settings.env.ANTHROPIC_BASE_URL, stack.served[1].stub.url);
    assert.equal(settings.env.ANTHROPIC_AUTH_TOKEN, stack.served[1].key);
    assert.equal(settings.env.CLAUDE_CODE_SUBAGENT_MODEL, VLLM.model);
    // one script in three places: the container's start command, native/claude-code.sh and install.ps1
    const script = heredoc(service('claude-code', LLAMA).script, 'JS');
    assert.equal(heredoc(stack.installer, 'JS'), script);
    const ps1 = stack.files['install.ps1'];
    assert.equal(ps1.slice(ps1.indexOf("@'\n") + 3, ps1.indexOf("'@ | node - $claudeDir")), script);
  });
  test('Ollama (natively) beside llama.cpp: Ollama first', async () => {
    const stack = await nativeStack('claude-code', [LLAMA], {}, ['ollama']);
    const { settings } = await install(stack);
    assert.equal(settings.env.ANTHROPIC_BASE_URL, stack.unitEnv.OLLAMA_URL);
    assert.equal(settings.env.ANTHROPIC_AUTH_TOKEN, 'ollama');
    assert.equal(settings.env.ANTHROPIC_MODEL, 'qwen3:4b');
  });
});
