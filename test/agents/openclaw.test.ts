// OpenClaw's first chat, run for real (issue 20): the openclaw package from npm at the catalogue's pin runs the
// generated start command and gateway natively (no Docker), against test/stub-model/server.mjs as the
// stack's Ollama and as the OpenAI endpoint a key goes to. What the container adds (the image, the network)
// is not here; every command and setting the stack gives OpenClaw is.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import * as yaml from 'js-yaml';
import { readConfig } from '../../src/config.js';
import { Generator } from '../../src/pipeline/generate.js';
import { agentPackage, freePort, run, startStub, waitForStatus, type StubServer } from '../support/agents.js';
import { shippedCatalogue } from '../support/server.js';

const generator = new Generator(shippedCatalogue(), readConfig({}).templatesDir, 20);
const cli = path.join(agentPackage('openclaw', 'openclaw'), 'openclaw.mjs');
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'stackwright-openclaw-'));
const token = crypto.randomBytes(32).toString('hex');
const children: ChildProcess[] = [];
let stub: StubServer;

before(async () => { stub = await startStub(); });
after(async () => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  await stub?.stop();
  fs.rmSync(root, { recursive: true, force: true });
});

/** The openclaw service of a generated stack: its start script as the container runs it, and its environment. */
function containerStart(request: Parameters<Generator['generate']>[0]) {
  const { files } = generator.generate(request);
  const service = (yaml.load(files['docker-compose.yml']) as { services: Record<string, { command: string[]; environment: Record<string, string> }> }).services.openclaw;
  // Compose turns $$ into $; the image's /app/openclaw.mjs is the npm package's entry here
  const script = service.command[2].replaceAll('$$', '$').replaceAll('node /app/openclaw.mjs', `node ${cli}`);
  return { files, script, environment: service.environment };
}

function baseEnv(home: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH, HOME: home, OPENCLAW_GATEWAY_TOKEN: token, OPENCLAW_DISABLE_BONJOUR: '1', NO_COLOR: '1', ...extra };
}

/** One agent turn through OpenClaw's embedded runtime (`openclaw agent --local`), with the config the start left. */
async function chat(home: string, message: string, env: Record<string, string> = {}) {
  const res = await run(process.execPath, [cli, 'agent', '--local', '--agent', 'main', '--message', message, '--json', '--timeout', '240'], { env: baseEnv(home, env), timeoutMs: 400_000 });
  return { ...res, all: `${res.stdout}\n${res.stderr}` };
}

/** A WebSocket connect as the Control UI sends it, from behind a proxy (X-Forwarded-For), with `origin`. */
function connectAs(url: string, origin: string): Promise<{ ok: boolean; message: string }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers: { origin, 'x-forwarded-for': '172.18.0.9' } } as unknown as string[]);
    const timer = setTimeout(() => { ws.close(); reject(new Error(`no answer to connect from ${origin}`)); }, 120_000);
    ws.onopen = () => ws.send(JSON.stringify({ type: 'req', id: 'c1', method: 'connect', params: { minProtocol: 3, maxProtocol: 3, client: { id: 'openclaw-control-ui', version: '1.0.0', platform: 'test', mode: 'webchat' }, role: 'operator', scopes: ['operator.read'], auth: { token } } }));
    ws.onmessage = (e) => {
      const frame = JSON.parse(String(e.data));
      if (frame.type !== 'res') return;
      clearTimeout(timer);
      ws.close();
      resolve({ ok: frame.ok, message: frame.error?.message ?? 'connected' });
    };
    ws.onerror = () => { clearTimeout(timer); reject(new Error(`WebSocket error from ${origin}`)); };
  });
}

describe('OpenClaw in local mode behind the proxy, offline with the stack\'s Ollama', () => {
  const home = path.join(root, 'offline');
  let port = 0;
  let log = '';
  const { files, script, environment } = containerStart({ name: 'oc-offline', preset: 'offline-assistant', proxy: 'caddy' });

  before(async () => {
    fs.mkdirSync(home, { recursive: true });
    port = await freePort();
    // the gateway as the container starts it, on a loopback port of this machine instead of --bind lan :18789
    const local = script.replace('--bind lan --port 18789', `--bind loopback --port ${port}`);
    assert.notEqual(local, script, 'the start command ends in the gateway on port 18789');
    const child = spawn('sh', ['-c', local], { env: baseEnv(home, { OPENCLAW_PUBLIC_URL: environment.OPENCLAW_PUBLIC_URL, OLLAMA_URL: stub.url, OLLAMA_MODEL: 'qwen3:4b' }) });
    children.push(child);
    child.stdout!.on('data', (d) => { log += d; });
    child.stderr!.on('data', (d) => { log += d; });
    await waitForStatus(`http://127.0.0.1:${port}/healthz`, 200, child, () => log);
  });

  test('the Control UI is under its base path, where the README sends the user', async () => {
    assert.equal(environment.OPENCLAW_PUBLIC_URL, 'http://localhost/openclaw');
    const ui = await fetch(`http://127.0.0.1:${port}/openclaw/`);
    assert.equal(ui.status, 200);
    assert.match(await ui.text(), /<html/i);
    assert.equal((await fetch(`http://127.0.0.1:${port}/`)).status, 404, 'nothing at the root: a link there is a 404');
    assert.match(files['README.md'], /OpenClaw, gateway[^\n]*: http:\/\/localhost:18789\/openclaw\/ /);
    assert.ok(!/http:\/\/localhost:18789\/ /.test(files['README.md']), 'no direct link to the root');
  });

  test('the proxy\'s origin is allowed under both loopback spellings, and only those', async () => {
    const ws = `ws://127.0.0.1:${port}/openclaw`;
    for (const origin of ['http://127.0.0.1', 'http://localhost']) {
      const res = await connectAs(ws, origin);
      assert.ok(!/origin not allowed/.test(res.message), `${origin}: ${res.message}`);
    }
    const evil = await connectAs(ws, 'http://evil.example');
    assert.equal(evil.ok, false);
    assert.match(evil.message, /origin not allowed/);
  });

  test('with no cloud key the first chat is answered by the stack\'s Ollama', async () => {
    const config = JSON.parse(fs.readFileSync(path.join(home, '.openclaw', 'openclaw.json'), 'utf8'));
    assert.equal(config.agents.defaults.model.primary, 'ollama/qwen3:4b');
    assert.equal(config.models.providers.ollama.baseUrl, stub.url);
    const before = (await stub.requests()).length;
    const res = await chat(home, 'hello from the offline test');
    assert.equal(res.code, 0, res.all);
    assert.match(res.stdout, /STUB-OK qwen3:4b: /, res.all);
    const calls = (await stub.requests()).slice(before);
    assert.ok(calls.some((c) => c.path === '/api/chat' && c.model === 'qwen3:4b' && c.userText.includes('hello from the offline test')), JSON.stringify(calls));
  });
});

describe('OpenClaw with one cloud key', () => {
  test('OPENAI_API_KEY picks OpenAI\'s model, and the chat goes out with the key', async () => {
    const home = path.join(root, 'key');
    fs.mkdirSync(home, { recursive: true });
    const { script, environment } = containerStart({ name: 'oc-key', preset: 'web-agent', proxy: 'caddy' });
    // the start command up to the gateway: what it writes into openclaw.json
    const configure = script.slice(0, script.indexOf(`exec node ${cli} gateway`));
    const key = `sk-stub-${crypto.randomBytes(8).toString('hex')}`;
    const env = { OPENCLAW_PUBLIC_URL: environment.OPENCLAW_PUBLIC_URL, OPENAI_API_KEY: key };
    const res = await run('sh', ['-c', configure], { env: baseEnv(home, env) });
    assert.equal(res.code, 0, res.stderr);
    const config = JSON.parse(fs.readFileSync(path.join(home, '.openclaw', 'openclaw.json'), 'utf8'));
    assert.equal(config.agents.defaults.model.primary, 'openai/gpt-5.5');
    assert.equal(config.models?.providers?.ollama, undefined, 'no Ollama in this stack, none configured');
    // the stand-in for api.openai.com: OpenAI's provider pointed at the stub (models.providers.openai.baseUrl,
    // docs/providers/openai.md), so the request the key authorises is seen
    const patch = await run(process.execPath, [cli, 'config', 'patch', '--stdin'], { env: baseEnv(home), input: JSON.stringify({ models: { providers: { openai: { baseUrl: `${stub.url}/v1`, models: [] } } } }) });
    assert.equal(patch.code, 0, patch.stderr);
    const before = (await stub.requests()).length;
    const answer = await chat(home, 'hello with a key', env);
    assert.equal(answer.code, 0, answer.all);
    assert.match(answer.stdout, /STUB-OK gpt-5\.5: /, answer.all);
    const calls = (await stub.requests()).slice(before);
    assert.ok(calls.some((c) => c.path.startsWith('/v1/') && c.model === 'gpt-5.5' && c.key), JSON.stringify(calls));
  });
});
