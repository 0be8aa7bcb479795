// The checks a booted stack must pass, shared by the engine tests and the --all run. Each returns the
// problems it found (empty when the stack passed), so a table row and a test assertion read the same facts.
import http from 'node:http';
import https from 'node:https';
import assert from 'node:assert/strict';
import type { CommandResult } from './engine.js';
import type { ContainerState, Stack } from './stack.js';

/** A script or command that must have exited 0; its output is the message, so a failure says why. */
export function assertSucceeded(result: CommandResult, what: string, extra = ''): void {
  assert.equal(result.code, 0, `${what} failed:\n${result.stderr}\n${result.stdout}${extra}`);
}

/** Every container running and healthy (or running with no check), one-shot containers exited 0, no restarts. */
export function containerProblems(containers: ContainerState[]): string[] {
  const problems: string[] = [];
  if (containers.length === 0) problems.push('no containers');
  for (const c of containers) {
    if (c.oneShot) {
      if (c.status !== 'exited' || c.exitCode !== 0) problems.push(`${c.service}: one-shot container ${c.status} (exit ${c.exitCode})`);
    } else if (c.status !== 'running' || !['healthy', 'none'].includes(c.health)) {
      problems.push(`${c.service}: ${c.status}, health ${c.health}`);
    }
    if (c.restarts > 0) problems.push(`${c.service}: restarted ${c.restarts} time(s)`);
  }
  return problems;
}

/**
 * Every route of the README through the proxy: a route behind the proxy's basic auth answers 401 without
 * credentials and 2xx/3xx with the ones in .env; a route to an app with its own login reaches the app
 * (any answer from it but a proxy error: 502, 503, 504). `port`: the proxy's host port where .env moved it.
 */
export async function routeProblems(stack: Stack, { resolveTo = '127.0.0.1', ca, port }: { resolveTo?: string; ca?: string; port?: number } = {}): Promise<string[]> {
  const problems: string[] = [];
  const user = stack.env('STACK_PROXY_USER') ?? 'admin';
  const password = stack.env('STACK_PROXY_PASSWORD') ?? '';
  for (const route of stack.routes()) {
    const url = new URL(route.url);
    const gated = /proxy basic auth/.test(route.login);
    const ask = (headers: Record<string, string>) => request(url, resolveTo, headers, ca, port);
    const anonymous = await ask({});
    if (gated) {
      if (anonymous.status !== 401) problems.push(`${route.url}: ${anonymous.status} without credentials (want 401)`);
      const authorised = await ask({ authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}` });
      if (authorised.status < 200 || authorised.status >= 400) problems.push(`${route.url}: ${authorised.status} with the credentials in .env (want 2xx/3xx)`);
    } else if (anonymous.status === 0 || anonymous.status >= 502) {
      problems.push(`${route.url}: ${anonymous.status || anonymous.error} (the app behind ${route.target} was not reached)`);
    }
  }
  return problems;
}

/** The status of each route behind the proxy's basic auth, asked with these credentials. */
export async function gatedStatuses(stack: Stack, user: string, password: string): Promise<number[]> {
  const gated = stack.routes().filter((route) => /proxy basic auth/.test(route.login));
  const authorization = `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
  return Promise.all(gated.map(async (route) => (await request(new URL(route.url), '127.0.0.1', { authorization })).status));
}

/**
 * One request to a route's URL, sent to the local proxy whatever its host name resolves to (with SNI for HTTPS),
 * on `port` where the stack's .env moved the proxy's host port away from the URL's.
 */
function request(url: URL, address: string, headers: Record<string, string>, ca?: string, port?: number): Promise<{ status: number; error?: string }> {
  const secure = url.protocol === 'https:';
  const options = {
    host: address,
    port: port ?? Number(url.port || (secure ? 443 : 80)),
    path: `${url.pathname}${url.search}`,
    headers: { host: url.host, ...headers },
    servername: url.hostname,
    ca,
    timeout: 20_000,
  };
  return new Promise((resolve) => {
    const req = (secure ? https : http).request(options, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0 }));
    });
    req.on('timeout', () => req.destroy(new Error('timed out')));
    req.on('error', (e) => resolve({ status: 0, error: e.message }));
    req.end();
  });
}

interface Consumer { user: string; passwordKey: string; databases: string[] }

/** The consumers a server's generated setup script creates: each user, its password's .env key, its databases. */
export function setupConsumers(script: string): Consumer[] {
  const consumers = new Map<string, Consumer>();
  for (const line of script.split('\n')) {
    const user = /^ensure_(?:role|user) (\S+) "\$([A-Za-z0-9_]+)"$/.exec(line);
    if (user) consumers.set(user[1], { user: user[1], passwordKey: user[2], databases: [] });
    const db = /^ensure_database (\S+) (\S+)/.exec(line);
    if (db) consumers.get(db[2])?.databases.push(db[1]);
  }
  return [...consumers.values()];
}

/** Runs a command in a service's container with extra variables (`docker compose exec` for a Compose stack). */
export type DatabaseExec = (service: string, env: string[], argv: string[]) => Promise<CommandResult>;

/**
 * Each database consumer, from inside its server's container over TCP: it logs in to each of its own
 * databases, and is refused by every other one (other consumers' and the server's own).
 */
export async function databaseProblems(stack: Stack, exec: DatabaseExec = (service, env, argv) => stack.compose(['exec', '-T', ...env.flatMap((e) => ['-e', e]), service, ...argv])): Promise<{ checked: number; problems: string[] }> {
  const problems: string[] = [];
  let checked = 0;
  for (const server of stack.databaseServers()) {
    const consumers = setupConsumers(stack.read(`config/${server.id}/create-databases.sh`));
    const serverOwn = server.kind === 'postgres'
      ? ['postgres', 'template1', stack.env(`${server.envPrefix}_POSTGRES_DB`) ?? 'postgres']
      : ['mysql', stack.env(`${server.envPrefix}_MYSQL_DATABASE`) ?? 'stack'];
    const all = [...new Set([...consumers.flatMap((c) => c.databases), ...serverOwn])];
    for (const consumer of consumers) {
      const password = stack.env(consumer.passwordKey) ?? '';
      for (const database of all) {
        const own = consumer.databases.includes(database);
        const result = server.kind === 'postgres'
          ? await exec(server.id, [`PGPASSWORD=${password}`], ['psql', '-X', '-h', '127.0.0.1', '-U', consumer.user, '-d', database, '-tAc', 'select 1'])
          : await exec(server.id, [`MYSQL_PWD=${password}`], ['mysql', '-h', '127.0.0.1', '-u', consumer.user, database, '-e', 'select 1']);
        checked++;
        if (own && result.code !== 0) problems.push(`${consumer.user} cannot connect to its own database ${database}: ${result.stderr.trim()}`);
        if (!own && result.code === 0) problems.push(`${consumer.user} connects to ${database}, which is not its own`);
      }
    }
  }
  return { checked, problems };
}
