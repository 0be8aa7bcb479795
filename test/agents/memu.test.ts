// memU's model endpoint (issue 20): the server.py the generated start command writes, run with Python and
// stand-in modules for its PyPI dependencies (memu-py, FastAPI and uvicorn cannot be installed here), asked
// which endpoint and models it hands memU's OpenAI client for each set of keys. memU's own use of those
// settings is checked against its source at v1.4.0 (cited in the manifest). Natively (issue 35) the same server.py,
// taken from native/memu.sh, runs with the unit's environment as native/memu.sh writes it, the model server's
// address being the stub model server's (test/stub-model answering as that server), which is then asked, with
// the profile's key, for its models and for an embedding of the profile's embedding model.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import * as yaml from 'js-yaml';
import { readConfig } from '../../src/config.js';
import { Generator } from '../../src/pipeline/generate.js';
import { run, startStub } from '../support/agents.js';
import { dotenvKeyOf, exampleValue, heredoc, serves, unitEnvironment, wiredModelServers } from '../support/native-launch.js';
import { shippedCatalogue } from '../support/server.js';

const generator = new Generator(shippedCatalogue(), readConfig({}).templatesDir, 20);
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'stackwright-memu-'));
after(() => fs.rmSync(root, { recursive: true, force: true }));

// Just enough of fastapi and uvicorn for server.py to load without serving.
const STAND_INS: Record<string, string> = {
  'fastapi/__init__.py': `class HTTPException(Exception):
    def __init__(self, status_code, detail=None):
        super().__init__(detail)
        self.status_code, self.detail = status_code, detail
class Request: pass
class FastAPI:
    def __init__(self, **kw): pass
    def _deco(self, *a, **kw): return lambda f: f
    middleware = get = post = _deco
`,
  'fastapi/encoders.py': 'def jsonable_encoder(x): return x\n',
  'fastapi/responses.py': 'class JSONResponse:\n    def __init__(self, *a, **kw): pass\n',
  'uvicorn/__init__.py': 'def run(*a, **kw): pass\n',
};

/** The server.py the memu service's container start command writes. */
function containerServer(files: Record<string, string>): string {
  const service = (yaml.load(files['docker-compose.yml']) as { services: Record<string, { command: string[] }> }).services.memu;
  return heredoc(service.command[2].replaceAll('$$', '$'), 'PY');
}

/** The server.py of a generated stack's container start command, and a harness printing llm_profile() as JSON. */
function serverFiles(request: Parameters<Generator['generate']>[0]): string {
  return serverDir(containerServer(generator.generate(request).files));
}

/** A folder with `server`, the stand-ins it imports and the harness. */
function serverDir(server: string): string {
  const dir = fs.mkdtempSync(path.join(root, 'app-'));
  for (const [file, text] of Object.entries(STAND_INS)) {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    fs.writeFileSync(path.join(dir, file), text);
  }
  fs.writeFileSync(path.join(dir, 'server.py'), server);
  fs.writeFileSync(path.join(dir, 'harness.py'), `import json, runpy, sys
ns = runpy.run_path(sys.argv[1])
try:
    print(json.dumps(ns["llm_profile"]()))
except ns["HTTPException"] as e:
    print(json.dumps({"status": e.status_code, "detail": e.detail}))
`);
  return dir;
}

async function profile(dir: string, env: Record<string, string>) {
  const res = await run('python3', [path.join(dir, 'harness.py'), path.join(dir, 'server.py')], {
    env: { PATH: process.env.PATH, PYTHONPATH: dir, API_KEY: 'k', MEMU_DATA_DIR: path.join(dir, 'data'), ...env },
  });
  assert.equal(res.code, 0, res.stderr);
  return JSON.parse(res.stdout) as Record<string, string | number>;
}

describe('memU\'s model endpoint', () => {
  const dir = serverFiles({ name: 'mu', preset: 'offline-assistant', primaryFramework: 'memu' });

  test('no cloud key and Ollama in the stack: the stack\'s Ollama /v1 with the chat and embedding models from .env', async () => {
    assert.deepEqual(await profile(dir, { OLLAMA_URL: 'http://ollama:11434', OLLAMA_MODEL: 'qwen3:4b', OLLAMA_EMBED_MODEL: 'nomic-embed-text' }), {
      api_key: 'ollama', base_url: 'http://ollama:11434/v1', chat_model: 'qwen3:4b', embed_model: 'nomic-embed-text',
    });
    // MEMU_CHAT_MODEL / MEMU_EMBED_MODEL (CHAT_MODEL, EMBED_MODEL in the container) still override
    assert.equal((await profile(dir, { OLLAMA_URL: 'http://ollama:11434/', EMBED_MODEL: 'mxbai-embed-large' })).embed_model, 'mxbai-embed-large');
  });

  test('a cloud key wins over the stack\'s Ollama', async () => {
    assert.deepEqual(await profile(dir, { OLLAMA_URL: 'http://ollama:11434', OPENROUTER_API_KEY: 'sk-or-test' }), {
      api_key: 'sk-or-test', base_url: 'https://openrouter.ai/api/v1', chat_model: 'openai/gpt-4o-mini', embed_model: 'openai/text-embedding-3-small',
    });
  });

  test('neither a key nor Ollama: a 503 that says what to set', async () => {
    assert.deepEqual(await profile(dir, {}), { status: 503, detail: 'memU needs OPENAI_API_KEY or OPENROUTER_API_KEY in .env (or Ollama, LocalAI or Xinference in the stack)' });
  });

  test('the container gets the stack\'s Ollama and both model variables', () => {
    const { files } = generator.generate({ name: 'mu', preset: 'offline-assistant', primaryFramework: 'memu' });
    const env = (yaml.load(files['docker-compose.yml']) as { services: Record<string, { environment: Record<string, string> }> }).services.memu.environment;
    assert.equal(env.OLLAMA_URL, 'http://ollama:11434');
    assert.equal(env.OLLAMA_MODEL, '${OLLAMA_MODEL}');
    assert.equal(env.OLLAMA_EMBED_MODEL, '${OLLAMA_EMBED_MODEL}');
  });
});

// Issue 35: LocalAI and Xinference serve a chat and an embedding model; llama.cpp, vLLM and SGLang one model each
describe('memU with the stack\'s other model servers', () => {
  for (const [id, prefix, chat, embed, keyed] of [['local-ai', 'LOCAL_AI', 'qwen_qwen3.5-2b', 'nemotron-3-embed-1b-q4', true], ['xinference', 'XINFERENCE', 'qwen2.5-instruct', 'bge-small-en-v1.5', false]] as const) {
    test(`${id}: no cloud key: its /v1 with its chat and embedding models and its key`, async () => {
      const dir = serverFiles({ name: `mu-${id}`, primaryFramework: 'memu', services: [id] });
      const { files } = generator.generate({ name: `mu-${id}`, primaryFramework: 'memu', services: [id] });
      const env = (yaml.load(files['docker-compose.yml']) as { services: Record<string, { environment: Record<string, string> }> }).services.memu.environment;
      assert.equal(env[`${prefix}_MODEL`], `\${${prefix}_MODEL}`);
      assert.equal(env[`${prefix}_EMBED_MODEL`], `\${${prefix}_EMBED_MODEL}`);
      assert.match(files['.env.example'], new RegExp(`^${prefix}_EMBED_MODEL=${embed.replace(/\./g, '\\.')}$`, 'm'));
      assert.deepEqual(await profile(dir, { [`${prefix}_URL`]: `http://${id}:1234`, [`${prefix}_MODEL`]: chat, [`${prefix}_EMBED_MODEL`]: embed, ...(keyed ? { [`${prefix}_API_KEY`]: 'server-key' } : {}) }), {
        api_key: keyed ? 'server-key' : 'no-key', base_url: `http://${id}:1234/v1`, chat_model: chat, embed_model: embed,
      });
      assert.match(files['scripts/start.sh'], /note: no cloud key for memU: it answers with the stack/);
    });
  }
  for (const id of ['llama-cpp', 'vllm', 'sglang']) {
    test(`${id}: start.sh stops with why (no embedding model beside the chat model)`, () => {
      const { files } = generator.generate({ name: `mu-${id}`, primaryFramework: 'memu', services: [id] });
      assert.match(files['scripts/start.sh'], /die .*memU needs a model provider key[^\n]*memU cannot answer with llama\.cpp, vLLM or SGLang alone/);
      assert.match(files['README.md'], /memU cannot answer with llama\.cpp, vLLM or SGLang alone/);
    });
  }
});

// Issue 35, natively: the server.py native/memu.sh installs, with the unit's environment, the servers at stubs
describe('memU on bare metal with the stack\'s model servers', () => {
  // LocalAI and Xinference, from the catalogue (each serves an embedding model beside the chat model)
  const SERVERS = wiredModelServers('memu');
  const key = (id: string) => `key-${id}-0123456789`;

  /**
   * A bare-metal stack holding `ids` and `profile(env)`, the native server.py's llm_profile() with the unit's
   * environment, each wired server's published port at a stub answering as it (its chat and embedding models, its key).
   */
  async function nativeStack(ids: readonly string[], dotenv: Record<string, string>, check: (s: { files: Record<string, string>; env: Record<string, string>; urls: Record<string, string>; profile: Record<string, string | number> }) => Promise<void>) {
    const { files } = generator.generate({ name: 'mu-bm', primaryFramework: 'memu', services: [...ids], deploymentType: 'bare-metal' });
    const stubs = [];
    const urls: Record<string, string> = {};
    const set: Record<string, string> = { MEMU_API_KEY: 'k' };
    try {
      for (const server of SERVERS.filter((s) => ids.includes(s.id))) {
        const models = [exampleValue(files, `${server.prefix}_MODEL`), exampleValue(files, `${server.prefix}_EMBED_MODEL`)];
        const stub = await startStub({ STUB_SERVER: server.id, STUB_API_KEY: server.keyed ? key(server.id) : '', STUB_MODELS: models.join(',') });
        stubs.push(stub);
        urls[server.id] = stub.url;
        set[dotenvKeyOf(files['native/memu.sh'], `${server.prefix}_URL`)] = new URL(stub.url).port;
        if (server.keyed) set[dotenvKeyOf(files['native/memu.sh'], `${server.prefix}_API_KEY`)] = key(server.id);
      }
      const env = await unitEnvironment(files, 'memu', { ...set, ...dotenv });
      await check({ files, env, urls, profile: await profile(serverDir(heredoc(files['native/memu.sh'], 'PY')), env) });
    } finally {
      for (const stub of stubs) await stub.stop();
    }
  }

  /** What memU's OpenAI client would ask of the profile's server: its models (with the key), an embedding of the embedding model. */
  async function answers(profile: Record<string, string | number>) {
    const base = String(profile.base_url);
    assert.ok(await serves(base, String(profile.api_key), String(profile.chat_model)), 'the chat model is served');
    const res = await fetch(`${base}/embeddings`, { method: 'POST', headers: { authorization: `Bearer ${profile.api_key}`, 'content-type': 'application/json' }, body: JSON.stringify({ model: profile.embed_model, input: ['hello'] }) });
    assert.equal(res.status, 200, `${base}/embeddings`);
  }

  test('the servers wired are LocalAI and Xinference (besides Ollama)', () => {
    assert.deepEqual(SERVERS.map((s) => s.id), ['local-ai', 'xinference']);
  });

  for (const server of SERVERS) {
    test(`${server.id}: no cloud key: its /v1 with the chat and embedding models and the key of the unit's environment`, async () => {
      await nativeStack([server.id], {}, async ({ files, env, urls, profile: p }) => {
        assert.equal(env[`${server.prefix}_URL`], urls[server.id], 'the unit reaches the server on its published port');
        assert.deepEqual(p, {
          api_key: server.keyed ? key(server.id) : 'no-key', base_url: `${urls[server.id]}/v1`,
          chat_model: exampleValue(files, `${server.prefix}_MODEL`), embed_model: exampleValue(files, `${server.prefix}_EMBED_MODEL`),
        });
        await answers(p);
      });
    });
  }

  test('two servers: LocalAI first, LOCAL_MODEL_SERVER picks Xinference, a cloud key still wins', async () => {
    await nativeStack(['local-ai', 'xinference'], {}, async ({ files, urls, profile: p }) => {
      assert.equal(p.base_url, `${urls['local-ai']}/v1`);
      assert.ok(files['README.md'].includes('set `LOCAL_MODEL_SERVER` in `.env` to `local-ai` or `xinference` and run `sudo native/memu.sh` again to switch'), 'how a native unit switches');
    });
    await nativeStack(['local-ai', 'xinference'], { LOCAL_MODEL_SERVER: 'xinference' }, async ({ files, env, urls, profile: p }) => {
      assert.equal(env.LOCAL_MODEL_SERVER, 'xinference');
      assert.deepEqual(p, { api_key: 'no-key', base_url: `${urls.xinference}/v1`, chat_model: exampleValue(files, 'XINFERENCE_MODEL'), embed_model: exampleValue(files, 'XINFERENCE_EMBED_MODEL') });
      await answers(p);
    });
    await nativeStack(['local-ai', 'xinference'], { LOCAL_MODEL_SERVER: 'xinference', OPENROUTER_API_KEY: 'sk-or-test' }, async ({ profile: p }) => {
      assert.equal(p.base_url, 'https://openrouter.ai/api/v1');
    });
  });

  for (const id of ['llama-cpp', 'vllm', 'sglang']) {
    test(`${id}: not wired (no embedding model beside the chat model): start.sh and the README say why, server.py asks for a key`, async () => {
      await nativeStack([id], {}, async ({ files, env, profile: p }) => {
        assert.ok(env[`${id.toUpperCase().replace('-', '_')}_URL`], 'the unit knows where the server is');
        assert.equal(p.status, 503);
        assert.match(files['scripts/start.sh'], /die .*memU needs a model provider key[^\n]*memU cannot answer with llama\.cpp, vLLM or SGLang alone/);
        assert.match(files['README.md'], /memU cannot answer with llama\.cpp, vLLM or SGLang alone/);
        assert.doesNotMatch(files['README.md'], /On bare metal memU is wired to the stack's Ollama only/);
      });
    });
  }

  test('natively memU runs the container\'s server.py, verbatim', () => {
    const request = { name: 'mu-same', primaryFramework: 'memu', services: ['local-ai'] };
    assert.equal(heredoc(generator.generate({ ...request, deploymentType: 'bare-metal' }).files['native/memu.sh'], 'PY'), containerServer(generator.generate(request).files));
  });

  test('the README sends a native memU\'s callers to STACK_NATIVE_BIND (the host) and host.docker.internal (containers), where it listens', () => {
    const { files } = generator.generate({ name: 'mu-readme', primaryFramework: 'memu', services: ['local-ai'], deploymentType: 'bare-metal' });
    const readme = files['README.md'];
    assert.match(readme, /from this machine at `http:\/\/<STACK_NATIVE_BIND from \.env>:8000` and from the stack's containers at `http:\/\/host\.docker\.internal:8000`/);
    assert.ok(!readme.includes('http://memu:8000'), 'no container address for a native memU');
    assert.match(files['native/memu.sh'], /MEMU_HOST="\$\{STACK_NATIVE_BIND/, 'it listens on STACK_NATIVE_BIND');
  });
});
