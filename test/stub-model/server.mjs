#!/usr/bin/env node
// A stand-in model server for tests: answers every chat with a fixed, recognisable text, so an agent's
// round trip can be proven without a model or a cloud key. Plain Node, no dependencies, so it also runs
// as a stack's `ollama` container (`node server.mjs` in a node image, PORT=11434).
//
// It speaks:
//   OpenAI:    GET /v1/models, POST /v1/chat/completions (stream or not), POST /v1/responses (stream or not)
//   Anthropic: POST /v1/messages (stream or not), POST /v1/messages/count_tokens
//   Ollama:    GET / , GET /api/version, GET /api/tags, POST /api/show, POST /api/chat (NDJSON stream by
//              default, as Ollama does), POST /api/generate, POST /api/pull
//   tests:     GET /_stub/requests (what it received: method, path, model, the key that came with it)
// STUB_SERVER=llama-cpp|vllm|sglang|local-ai|xinference makes it answer as that server instead (issue 35): only
// the routes that server has (Xinference: no /v1/responses, Anthropic Messages under /anthropic/v1/messages; no
// Ollama routes), /v1/models in that server's shape, and with STUB_API_KEY set a 401 without that Bearer key on
// every route the server guards. The shapes are written from each server's source (the plugin manifests cite it).
// Every answer is `STUB-OK <model>: <the last user text, cut to 80 characters>`.
// Usage: node server.mjs [port]   (or PORT=...; 0 picks a free port; the first line printed is the URL)
import http from 'node:http';

const MODELS = (process.env.STUB_MODELS ?? 'stub-model,llama3.2:1b,qwen2.5:0.5b').split(',').map((m) => m.trim()).filter(Boolean);
const received = [];

/** The text of the last user turn, whatever shape the API gives it. */
function lastUserText(messages, input) {
  const turns = Array.isArray(messages) ? messages : Array.isArray(input) ? input : typeof input === 'string' ? [{ role: 'user', content: input }] : [];
  const user = [...turns].reverse().find((m) => m && m.role === 'user');
  if (!user) return '';
  const parts = typeof user.content === 'string' ? [user.content] : (user.content ?? []).map((c) => c.text ?? c.input_text ?? '').filter(Boolean);
  // the user's own words come last (clients put reminders and context in earlier parts)
  return (parts[parts.length - 1] ?? '').replace(/\s+/g, ' ').trim();
}

function answer(model, text) {
  return `STUB-OK ${model}: ${text.slice(0, 80)}`;
}

function sendJson(res, status, body) {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

function sse(res) {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  return (event, data) => res.write(`${event ? `event: ${event}\n` : ''}data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`);
}

const now = () => Math.floor(Date.now() / 1000);
const usage = { prompt_tokens: 8, completion_tokens: 8, total_tokens: 16 };

function chatCompletions(body, res) {
  const model = body.model ?? MODELS[0];
  const content = answer(model, lastUserText(body.messages));
  const id = `chatcmpl-stub-${received.length}`;
  if (!body.stream) {
    return sendJson(res, 200, { id, object: 'chat.completion', created: now(), model, choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }], usage });
  }
  const send = sse(res);
  const chunk = (delta, finish) => ({ id, object: 'chat.completion.chunk', created: now(), model, choices: [{ index: 0, delta, finish_reason: finish }] });
  send(null, chunk({ role: 'assistant', content: '' }, null));
  for (const piece of content.match(/.{1,16}/gs)) send(null, chunk({ content: piece }, null));
  send(null, chunk({}, 'stop'));
  if (body.stream_options?.include_usage) send(null, { id, object: 'chat.completion.chunk', created: now(), model, choices: [], usage });
  send(null, '[DONE]');
  res.end();
}

function responses(body, res) {
  const model = body.model ?? MODELS[0];
  const text = answer(model, lastUserText(null, body.input));
  const id = `resp_stub_${received.length}`;
  const item = { id: `msg_stub_${received.length}`, type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text, annotations: [] }] };
  const done = { id, object: 'response', created_at: now(), status: 'completed', model, output: [item], usage: { input_tokens: 8, output_tokens: 8, total_tokens: 16 } };
  if (!body.stream) return sendJson(res, 200, done);
  const send = sse(res);
  let seq = 0;
  const ev = (type, extra) => send(type, { type, sequence_number: seq++, ...extra });
  ev('response.created', { response: { ...done, status: 'in_progress', output: [] } });
  ev('response.output_item.added', { output_index: 0, item: { ...item, status: 'in_progress', content: [] } });
  ev('response.content_part.added', { output_index: 0, item_id: item.id, content_index: 0, part: { type: 'output_text', text: '', annotations: [] } });
  ev('response.output_text.delta', { output_index: 0, item_id: item.id, content_index: 0, delta: text });
  ev('response.output_text.done', { output_index: 0, item_id: item.id, content_index: 0, text });
  ev('response.content_part.done', { output_index: 0, item_id: item.id, content_index: 0, part: item.content[0] });
  ev('response.output_item.done', { output_index: 0, item });
  ev('response.completed', { response: done });
  res.end();
}

function messages(body, res) {
  const model = body.model ?? MODELS[0];
  const text = answer(model, lastUserText(body.messages));
  const id = `msg_stub_${received.length}`;
  const message = { id, type: 'message', role: 'assistant', model, content: [{ type: 'text', text }], stop_reason: 'end_turn', stop_sequence: null, usage: { input_tokens: 8, output_tokens: 8 } };
  if (!body.stream) return sendJson(res, 200, message);
  const send = sse(res);
  send('message_start', { type: 'message_start', message: { ...message, content: [], stop_reason: null, usage: { input_tokens: 8, output_tokens: 1 } } });
  send('content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } });
  send('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } });
  send('content_block_stop', { type: 'content_block_stop', index: 0 });
  send('message_delta', { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 8 } });
  send('message_stop', { type: 'message_stop' });
  res.end();
}

function ollamaChat(body, res, generate) {
  const model = body.model ?? MODELS[0];
  const text = answer(model, generate ? String(body.prompt ?? '') : lastUserText(body.messages));
  const at = new Date().toISOString();
  const piece = (content) => (generate ? { model, created_at: at, response: content, done: false } : { model, created_at: at, message: { role: 'assistant', content }, done: false });
  const last = { ...piece(''), done: true, done_reason: 'stop', total_duration: 1000, prompt_eval_count: 8, eval_count: 8 };
  if (body.stream === false) return sendJson(res, 200, { ...last, ...piece(text), done: true, done_reason: 'stop' });
  res.writeHead(200, { 'content-type': 'application/x-ndjson' });
  for (const part of text.match(/.{1,16}/gs)) res.write(`${JSON.stringify(piece(part))}\n`);
  res.end(`${JSON.stringify(last)}\n`);
}

const ollamaModel = (name) => ({ name, model: name, modified_at: '2026-01-01T00:00:00Z', size: 1, digest: 'stub', details: { format: 'gguf', family: 'stub', parameter_size: '1B', quantization_level: 'Q4_0' } });

const SERVER = process.env.STUB_SERVER ?? 'ollama';
const API_KEY = process.env.STUB_API_KEY ?? '';

/** /v1/models as each server reports it (the fields clients read: data[].id, plus what each adds). */
function modelList() {
  const entry = {
    'llama-cpp': (id) => ({ id, object: 'model', created: now(), owned_by: 'llamacpp', meta: { n_ctx_train: 32768, n_params: 1543714304 } }),
    vllm: (id) => ({ id, object: 'model', created: now(), owned_by: 'vllm', root: id, parent: null, max_model_len: 8192, permission: [] }),
    sglang: (id) => ({ id, object: 'model', created: now(), owned_by: 'sglang', root: id, max_model_len: 8192 }),
    'local-ai': (id) => ({ id, object: 'model' }),
    xinference: (id) => ({ id, object: 'model', created: 0, owned_by: 'xinference', model_type: 'LLM', model_name: id, model_lang: ['en'], model_ability: ['chat'] }),
  }[SERVER] ?? ((id) => ({ id, object: 'model', created: 0, owned_by: 'stub' }));
  const body = { object: 'list', data: MODELS.map(entry) };
  // llama-server also lists its models in an Ollama-like "models" array
  if (SERVER === 'llama-cpp') body.models = MODELS.map((name) => ({ name, model: name, type: 'model', capabilities: ['completion'] }));
  return body;
}

/** Routes each server has, and those it answers without the key. */
const SERVER_ROUTES = {
  'llama-cpp': { routes: ['GET /health', 'GET /v1/models', 'POST /v1/chat/completions', 'POST /v1/responses', 'POST /v1/messages', 'POST /v1/messages/count_tokens'], open: ['GET /health', 'GET /v1/models'] },
  vllm: { routes: ['GET /health', 'GET /v1/models', 'POST /v1/chat/completions', 'POST /v1/responses', 'POST /v1/messages', 'POST /v1/messages/count_tokens'], open: ['GET /health'] },
  sglang: { routes: ['GET /health', 'GET /v1/models', 'POST /v1/chat/completions', 'POST /v1/responses', 'POST /v1/messages', 'POST /v1/messages/count_tokens'], open: ['GET /health'] },
  'local-ai': { routes: ['GET /readyz', 'GET /v1/models', 'POST /v1/chat/completions', 'POST /v1/responses', 'POST /v1/messages', 'POST /v1/embeddings'], open: ['GET /readyz'] },
  xinference: { routes: ['GET /status', 'GET /v1/models', 'POST /v1/chat/completions', 'POST /anthropic/v1/messages', 'POST /v1/embeddings'], open: ['GET /status', 'GET /v1/models', 'POST /v1/chat/completions', 'POST /anthropic/v1/messages', 'POST /v1/embeddings'] },
};

function embeddings(body, res) {
  const inputs = Array.isArray(body.input) ? body.input : [body.input ?? ''];
  sendJson(res, 200, { object: 'list', model: body.model ?? MODELS[0], data: inputs.map((_t, index) => ({ object: 'embedding', index, embedding: [0.1, 0.2, 0.3, 0.4] })), usage: { prompt_tokens: 1, total_tokens: 1 } });
}

const routes = {
  'GET /': (_b, res) => { res.writeHead(200, { 'content-type': 'text/plain' }); res.end('Ollama is running'); },
  'GET /v1/models': (_b, res) => sendJson(res, 200, modelList()),
  'GET /health': (_b, res) => sendJson(res, 200, { status: 'ok' }),
  'GET /readyz': (_b, res) => sendJson(res, 200, { status: 'ok' }),
  'GET /status': (_b, res) => sendJson(res, 200, {}),
  'POST /v1/embeddings': embeddings,
  'POST /anthropic/v1/messages': (b, res) => messages(b, res),
  'POST /v1/chat/completions': chatCompletions,
  'POST /v1/responses': responses,
  'POST /v1/messages': messages,
  'POST /v1/messages/count_tokens': (_b, res) => sendJson(res, 200, { input_tokens: 8 }),
  'GET /api/version': (_b, res) => sendJson(res, 200, { version: '0.12.0' }),
  'GET /api/tags': (_b, res) => sendJson(res, 200, { models: MODELS.map(ollamaModel) }),
  'GET /api/ps': (_b, res) => sendJson(res, 200, { models: [] }),
  'POST /api/show': (b, res) => sendJson(res, 200, { ...ollamaModel(b.model ?? b.name ?? MODELS[0]), modelfile: '', parameters: '', template: '{{ .Prompt }}', capabilities: ['completion', 'tools'], model_info: { 'general.architecture': 'stub', 'stub.context_length': 32768 } }),
  'POST /api/chat': (b, res) => ollamaChat(b, res, false),
  'POST /api/generate': (b, res) => ollamaChat(b, res, true),
  // a pulled model joins the list, as with Ollama (the stub answers with any model name)
  'POST /api/pull': (b, res) => {
    const name = b.model ?? b.name;
    if (typeof name === 'string' && name && !MODELS.includes(name)) MODELS.push(name);
    sendJson(res, 200, { status: 'success' });
  },
  'GET /_stub/requests': (_b, res) => sendJson(res, 200, received),
};

const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const pathname = new URL(req.url ?? '/', 'http://stub').pathname.replace(/\/+$/, '') || '/';
    let body = {};
    try {
      body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : {};
    } catch {
      return sendJson(res, 400, { error: { message: 'the body is not JSON', type: 'invalid_request_error' } });
    }
    const name = `${req.method} ${pathname}`;
    const as = SERVER_ROUTES[SERVER];
    const route = !as || as.routes.includes(name) || name === 'GET /_stub/requests' ? routes[name] : undefined;
    if (pathname !== '/_stub/requests') {
      // credential: the key as sent (a stub's test keys are not secrets), so a test can tell which key arrived
      const credential = (req.headers['x-api-key'] ?? req.headers.authorization?.replace(/^Bearer\s+/i, '')) || null;
      received.push({ method: req.method, path: pathname, model: body.model ?? null, stream: body.stream ?? null, key: Boolean(credential), credential, userText: lastUserText(body.messages, body.input ?? body.prompt) });
    }
    if (route && as && API_KEY && !as.open.includes(name) && name !== 'GET /_stub/requests' && (req.headers.authorization ?? '') !== `Bearer ${API_KEY}` && req.headers['x-api-key'] !== API_KEY) {
      return sendJson(res, 401, { error: { message: 'Invalid API Key', type: 'authentication_error', code: 401 } });
    }
    if (!route) return sendJson(res, 404, { error: { message: `the stub model server has no ${req.method} ${pathname}`, type: 'not_found' } });
    route(body, res);
  });
});

const port = Number(process.argv[2] ?? process.env.PORT ?? 11434);
server.listen(port, process.env.HOST ?? '127.0.0.1', () => {
  process.stdout.write(`http://${process.env.HOST ?? '127.0.0.1'}:${server.address().port}\n`);
});
for (const signal of ['SIGTERM', 'SIGINT']) process.on(signal, () => { server.close(() => process.exit(0)); server.closeAllConnections(); });
