// memU's model endpoint (issue 20): the server.py the generated start command writes, run with Python and
// stand-in modules for its PyPI dependencies (memu-py, FastAPI and uvicorn cannot be installed here), asked
// which endpoint and models it hands memU's OpenAI client for each set of keys. memU's own use of those
// settings is checked against its source at v1.4.0 (cited in the manifest).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import * as yaml from 'js-yaml';
import { readConfig } from '../../src/config.js';
import { Generator } from '../../src/pipeline/generate.js';
import { run } from '../support/agents.js';
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

/** The server.py of the memu service's container start command, and a harness printing llm_profile() as JSON. */
function serverFiles(request: Parameters<Generator['generate']>[0]): string {
  const { files } = generator.generate(request);
  const service = (yaml.load(files['docker-compose.yml']) as { services: Record<string, { command: string[]; environment: Record<string, string> }> }).services.memu;
  const script = service.command[2].replaceAll('$$', '$');
  const server = /<<'PY'\n([\s\S]*?)\nPY\n/.exec(script)![1];
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
    assert.deepEqual(await profile(dir, {}), { status: 503, detail: 'memU needs OPENAI_API_KEY or OPENROUTER_API_KEY in .env (or Ollama in the stack)' });
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
