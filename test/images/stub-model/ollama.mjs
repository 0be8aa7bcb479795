#!/usr/bin/env node
// `ollama` as a user and the stack's health check call it (`ollama list`, `ollama pull <model>`), asking the
// stub server in this container over Ollama's HTTP API, as the real CLI asks its server. Other commands fail.
const base = `http://${process.env.OLLAMA_HOST ?? '127.0.0.1:11434'}`;
const [command, model] = process.argv.slice(2);
async function call(path, body) {
  const res = await fetch(`${base}${path}`, body ? { method: 'POST', body: JSON.stringify(body) } : {});
  if (!res.ok) throw new Error(`${path}: ${res.status}`);
  return res.json();
}
try {
  if (command === 'list' || command === 'ls') {
    const { models } = await call('/api/tags');
    console.log('NAME\tID\tSIZE\tMODIFIED');
    for (const m of models) console.log(`${m.name}\tstub\t1 B\tnow`);
  } else if (command === 'pull' && model) {
    console.log((await call('/api/pull', { model })).status);
  } else {
    console.error(`ollama (stub): '${process.argv.slice(2).join(' ')}' is not supported here`);
    process.exit(1);
  }
} catch (e) {
  console.error(`Error: ${e.message}`);
  process.exit(1);
}
