// Issue 35: the agent CLIs from npm at the catalogue's pins (OpenClaw, Codex, Claude Code), configured by the
// generated container start command of a stack holding one of llama.cpp, vLLM, SGLang, LocalAI or Xinference
// and no cloud key, answer a chat through test/stub-model/server.mjs answering as that server (its routes, its
// /v1/models, its API key). What is proven: the settings the start leaves point the real CLI at the server with
// the configured model and key, and the CLI speaks an API the server has. Not proven: the real servers.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import * as yaml from 'js-yaml';
import { readConfig } from '../../src/config.js';
import { Generator } from '../../src/pipeline/generate.js';
import { agentPackage, run, startStub, type StubServer, codexScratch, MODEL_SERVERS, type ModelServer } from '../support/agents.js';
import { shippedCatalogue } from '../support/server.js';

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
      const before = (await stub.requests()).length;
      // a session applies the env block of settings.json; the container's own variables are there too
      const ask = await run(claude, ['-p', `hello ${server.id}`], {
        cwd: home, env: { PATH: process.env.PATH, HOME: home, DISABLE_AUTOUPDATER: '1', CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1' }, timeoutMs: 400_000,
      });
      assert.equal(ask.code, 0, `${ask.stdout}\n${ask.stderr}`);
      assert.ok(ask.stdout.includes(`STUB-OK ${server.model}: hello ${server.id}`), `${ask.stdout}\n${ask.stderr}`);
      const calls = (await stub.requests()).slice(before);
      const messages = server.id === 'xinference' ? '/anthropic/v1/messages' : '/v1/messages';
      assert.ok(calls.some((c) => c.path === messages && c.model === server.model && c.credential === (key || 'no-key')), JSON.stringify(calls));
    });
  }
});
