// Issue 35 on the real engine: the real OpenClaw from npm, started by the stack's own start.sh with no cloud key,
// answers a chat through its gateway from the stack's llama.cpp, and from its vLLM: our stub model server in each
// server's place, answering as that server (its routes, its /v1/models, a 401 without the key the stack
// generated; test/real-engine/images.ts). What this proves: the wiring of a real framework to each server's
// OpenAI-compatible API with the model from .env and the server's key, on the engine; not the servers themselves.
// Not here: a Python framework (nanobot, memU) on the engine, whose packages come from PyPI, unreachable here.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { assertSucceeded, containerProblems } from './checks.js';
import { requireEngine } from './engine.js';
import { Stack } from './stack.js';
import { ciOrAll } from './tiers.js';
import type { StubRequest } from '../support/agents.js';

for (const server of [
  { id: 'llama-cpp', name: 'llama.cpp server', model: 'LLAMA_CPP_MODEL', key: 'LLAMA_CPP_LLAMA_API_KEY', port: ['LLAMA_CPP_PORT_8080', '28081'], inCi: false },
  { id: 'vllm', name: 'vLLM', model: 'VLLM_MODEL', key: 'VLLM_VLLM_API_KEY', port: ['VLLM_PORT_8000', '28000'], inCi: true },
] as const) {
  // CI chats with vLLM; the long run (--all) with both
  describe(`OpenClaw answers its first chat on the engine from the stack's ${server.name}, with no cloud key`, { concurrency: false, ...ciOrAll(server.inCi) }, () => {
    let stack: Stack;
    const stubCalls = async (): Promise<StubRequest[]> => {
      const res = await fetch(`http://127.0.0.1:${server.port[1]}/_stub/requests`);
      return (await res.json()) as StubRequest[];
    };

    before(async () => {
      await requireEngine();
      // no proxy, and host ports of their own: the stack may share the engine with other test stacks
      stack = await Stack.generate({ name: `e2e-${server.id}`, services: [server.id] });
      await stack.provideImages();
      stack.writeEnv({ OPENCLAW_PORT_18789: '28789', OPENCLAW_PORT_18790: '28790', [server.port[0]]: server.port[1] });
    });
    after(async () => {
      await stack?.remove();
    });

    test('start.sh starts the stack and says the agent answers from the server; a chat through the gateway is answered with its model and key', async () => {
      const start = await stack.script('start.sh');
      assertSucceeded(start, 'start.sh');
      assert.match(start.stderr, new RegExp(`no cloud key for OpenClaw: it answers with the stack's ${server.name.replace('.', '\\.')} and the model in ${server.model}`));
      assert.deepEqual(containerProblems(await stack.containers()), []);
      const model = stack.env(server.model)!;
      const key = stack.env(server.key)!;
      assert.ok(model && key, 'the model and the server key are in .env');
      const res = await stack.compose(['exec', '-T', 'openclaw', 'node', '/app/openclaw.mjs', 'agent', '--agent', 'main', '--message', `hello ${server.id} on the engine`, '--json']);
      assertSucceeded(res, 'openclaw agent');
      const answer = JSON.parse(res.stdout) as { status: string; result: { payloads: { text: string }[]; meta: { agentMeta: { provider: string; model: string } } } };
      assert.equal(answer.status, 'ok', res.stdout);
      assert.equal(answer.result.meta.agentMeta.provider, 'local');
      assert.equal(answer.result.meta.agentMeta.model, model);
      assert.ok(answer.result.payloads.map((p) => p.text).join('\n').startsWith(`STUB-OK ${model}: `), res.stdout);
      const calls = await stubCalls();
      assert.ok(calls.some((c) => c.path === '/v1/chat/completions' && c.model === model && c.credential === key && c.userText.includes(`hello ${server.id} on the engine`)), JSON.stringify(calls));
    });
  });
}
