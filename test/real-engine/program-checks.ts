// What a real program (programs.ts) proves about the files and settings a plugin renders for it, beyond the
// generic checks: the program's own config check passes on the rendered file, the credentials in .env log in
// and wrong ones do not, and data written before a stop is there after the next start. Each check returns the
// problems it found (empty when the program passed), run from inside the service's container.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { command, type CommandResult } from './engine.js';
import type { Stack } from './stack.js';

export interface ProgramCheck {
  /** what the check proves, for the docs' table */
  proves: string;
  /** checks on the running stack: the rendered config parsed by the program, logins right and wrong */
  check: (stack: Stack) => Promise<string[]>;
  /** writes data before a stop ... */
  write?: (stack: Stack) => Promise<string[]>;
  /** ... that must be read back after the next start */
  readBack?: (stack: Stack) => Promise<string[]>;
}

const MARK = 'stackwright-check';

function exec(stack: Stack, service: string, args: string[]): Promise<CommandResult> {
  return stack.compose(['exec', '-T', service, ...args]);
}

/** A bash line in the service's container (the kit's Debian base has bash; for /dev/tcp). */
function bash(stack: Stack, service: string, line: string, ...args: string[]): Promise<CommandResult> {
  return exec(stack, service, ['bash', '-c', line, 'bash', ...args]);
}

function out(r: CommandResult): string {
  return `${r.stdout}${r.stderr}`.trim().slice(0, 400);
}

/** The result must have exited 0 and printed `want`, else a problem naming `what`. */
function expect(problems: string[], what: string, r: CommandResult, want?: RegExp): void {
  if (r.code !== 0) problems.push(`${what}: exit ${r.code}: ${out(r)}`);
  else if (want && !want.test(r.stdout)) problems.push(`${what}: output lacks ${want}: ${out(r)}`);
}

/** The result must have failed (exit non-zero, or printed `refusal`). */
function expectRefused(problems: string[], what: string, r: CommandResult, refusal?: RegExp): void {
  if (r.code === 0 && !(refusal && refusal.test(`${r.stdout}${r.stderr}`))) problems.push(`${what}: was accepted: ${out(r)}`);
}

/** A service's setting as .env holds it (keys are the service id's prefix and the variable's name). */
function setting(stack: Stack, service: string, name: string): string {
  const key = `${service.toUpperCase().replace(/-/g, '_')}_${name}`;
  const value = stack.env(key);
  if (!value) throw new Error(`.env has no ${key}`);
  return value;
}

/** GET (or POST) over HTTP inside the container with Debian's wget; basic auth sent without waiting for a challenge. */
function wget(stack: Stack, service: string, url: string, options: { user?: string; password?: string; post?: string } = {}): Promise<CommandResult> {
  const args = ['wget', '-q', '-O', '-', '--tries=1'];
  if (options.user !== undefined) args.push('--auth-no-challenge', `--user=${options.user}`, `--password=${options.password ?? ''}`);
  if (options.post !== undefined) args.push(`--post-data=${options.post}`);
  return exec(stack, service, [...args, url]);
}

/** An HTTP request with Node inside the container (images whose only program is node); prints the status, then the body. */
function nodeHttp(stack: Stack, service: string, url: string, options: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<CommandResult> {
  const script = `const [u, o] = [process.argv[1], JSON.parse(process.argv[2])];
fetch(u, { method: o.method || 'GET', headers: o.headers, body: o.body }).then(async (r) => { console.log(r.status); console.log(await r.text()); }, (e) => { console.error(e.message); process.exit(1); });`;
  return exec(stack, service, ['node', '-e', script, url, JSON.stringify(options)]);
}

/** The HTTP status nodeHttp printed first. */
function status(r: CommandResult): number {
  return Number(r.stdout.split('\n')[0]);
}

function expectStatus(problems: string[], what: string, r: CommandResult, want: number[]): void {
  if (r.code !== 0 || !want.includes(status(r))) problems.push(`${what}: want HTTP ${want.join('/')}, got ${r.code === 0 ? status(r) : `exit ${r.code}`}: ${out(r)}`);
}

export const PROGRAM_CHECKS: Record<string, ProgramCheck> = {
  mosquitto: {
    proves: 'the broker reads the rendered mosquitto.conf and the password file the start command writes: the .env user publishes and subscribes, anonymous and wrong-password clients are refused; a retained message survives a restart',
    async check(stack) {
      const problems: string[] = [];
      const user = setting(stack, 'mosquitto', 'MOSQUITTO_USERNAME');
      const password = setting(stack, 'mosquitto', 'MOSQUITTO_PASSWORD');
      const sub = (...auth: string[]) => exec(stack, 'mosquitto', ['mosquitto_sub', '-h', '127.0.0.1', '-p', '1883', ...auth, '-t', '$SYS/broker/uptime', '-C', '1', '-W', '5']);
      expect(problems, 'subscribe with the .env user', await sub('-u', user, '-P', password), /seconds/);
      expectRefused(problems, 'subscribe without credentials', await sub());
      expectRefused(problems, 'subscribe with a wrong password', await sub('-u', user, '-P', `${password}x`));
      return problems;
    },
    async write(stack) {
      const problems: string[] = [];
      const r = await exec(stack, 'mosquitto', ['mosquitto_pub', '-h', '127.0.0.1', '-u', setting(stack, 'mosquitto', 'MOSQUITTO_USERNAME'), '-P', setting(stack, 'mosquitto', 'MOSQUITTO_PASSWORD'), '-r', '-q', '1', '-t', MARK, '-m', MARK]);
      expect(problems, 'publish a retained message', r);
      return problems;
    },
    async readBack(stack) {
      const problems: string[] = [];
      const r = await exec(stack, 'mosquitto', ['mosquitto_sub', '-h', '127.0.0.1', '-u', setting(stack, 'mosquitto', 'MOSQUITTO_USERNAME'), '-P', setting(stack, 'mosquitto', 'MOSQUITTO_PASSWORD'), '-t', MARK, '-C', '1', '-W', '5']);
      expect(problems, 'the retained message after the restart', r, new RegExp(MARK));
      return problems;
    },
  },

  valkey: {
    proves: 'the server runs with the rendered command (append-only, the .env password): the password is required and a wrong one refused; a key survives a restart (AOF)',
    async check(stack) {
      const problems: string[] = [];
      const password = setting(stack, 'valkey', 'VALKEY_PASSWORD');
      expect(problems, 'PING with the .env password', await exec(stack, 'valkey', ['valkey-cli', '-a', password, '--no-auth-warning', 'ping']), /PONG/);
      expectRefused(problems, 'PING without a password', await exec(stack, 'valkey', ['valkey-cli', 'ping']), /NOAUTH/);
      expectRefused(problems, 'PING with a wrong password', await exec(stack, 'valkey', ['valkey-cli', '-a', `${password}x`, '--no-auth-warning', 'ping']), /WRONGPASS|invalid|AUTH failed/i);
      expect(problems, 'appendonly is on', await exec(stack, 'valkey', ['valkey-cli', '-a', password, '--no-auth-warning', 'config', 'get', 'appendonly']), /yes/);
      return problems;
    },
    async write(stack) {
      const problems: string[] = [];
      expect(problems, 'SET a key', await exec(stack, 'valkey', ['valkey-cli', '-a', setting(stack, 'valkey', 'VALKEY_PASSWORD'), '--no-auth-warning', 'set', MARK, MARK]), /OK/);
      return problems;
    },
    async readBack(stack) {
      const problems: string[] = [];
      expect(problems, 'GET the key after the restart', await exec(stack, 'valkey', ['valkey-cli', '-a', setting(stack, 'valkey', 'VALKEY_PASSWORD'), '--no-auth-warning', 'get', MARK]), new RegExp(MARK));
      return problems;
    },
  },

  ntfy: {
    proves: 'ntfy serve reads the rendered NTFY_* settings (cache file, auth file, base URL): a message published to a topic is polled back, the auth database answers `ntfy user list`; the message survives a restart (cache file on the volume)',
    async check(stack) {
      const problems: string[] = [];
      expect(problems, '/v1/health', await wget(stack, 'ntfy', 'http://127.0.0.1:80/v1/health'), /"healthy":true/);
      expect(problems, 'ntfy user list (NTFY_AUTH_FILE)', await exec(stack, 'ntfy', ['ntfy', 'user', 'list']), /.|^$/);
      return problems;
    },
    async write(stack) {
      const problems: string[] = [];
      expect(problems, 'publish a message', await wget(stack, 'ntfy', `http://127.0.0.1:80/${MARK}`, { post: MARK }), /"id"/);
      return problems;
    },
    async readBack(stack) {
      const problems: string[] = [];
      expect(problems, 'poll the message after the restart', await wget(stack, 'ntfy', `http://127.0.0.1:80/${MARK}/json?poll=1`), new RegExp(`"message":"${MARK}"`));
      return problems;
    },
  },

  nats: {
    proves: 'nats-server runs with the rendered command: JetStream on the volume, the .env token required (a client with it gets PONG, one without it and one with a wrong token get an authorization error)',
    async check(stack) {
      const problems: string[] = [];
      const token = setting(stack, 'nats', 'NATS_TOKEN');
      const connect = (t?: string) => bash(stack, 'nats', `exec 3<>/dev/tcp/127.0.0.1/4222; printf 'CONNECT {"verbose":false%s}\\r\\nPING\\r\\n' "$1" >&3; timeout 3 cat <&3; true`, t === undefined ? '' : `,"auth_token":"${t}"`);
      expect(problems, 'connect with the .env token', await connect(token), /PONG/);
      expectRefused(problems, 'connect without a token', await connect(), /Authorization Violation/);
      expectRefused(problems, 'connect with a wrong token', await connect(`${token}x`), /Authorization Violation/);
      expect(problems, 'JetStream on /data', await wget(stack, 'nats', 'http://127.0.0.1:8222/jsz?config=1'), /"store_dir":\s*"\/data/);
      return problems;
    },
  },

  etcd: {
    proves: 'etcd reads the rendered ETCD_* settings (data directory on the volume, client URLs): a key is written and read with etcdctl and survives a restart',
    async check(stack) {
      const problems: string[] = [];
      expect(problems, 'endpoint status', await exec(stack, 'etcd', ['etcdctl', '--endpoints=http://127.0.0.1:2379', 'endpoint', 'status', '-w', 'json']), /"leader"/);
      expect(problems, 'the data directory on the volume', await exec(stack, 'etcd', ['ls', '/var/lib/etcd/data/member']), /wal/);
      return problems;
    },
    async write(stack) {
      const problems: string[] = [];
      expect(problems, 'put a key', await exec(stack, 'etcd', ['etcdctl', '--endpoints=http://127.0.0.1:2379', 'put', MARK, MARK]), /OK/);
      return problems;
    },
    async readBack(stack) {
      const problems: string[] = [];
      expect(problems, 'get the key after the restart', await exec(stack, 'etcd', ['etcdctl', '--endpoints=http://127.0.0.1:2379', 'get', MARK, '--print-value-only']), new RegExp(MARK));
      return problems;
    },
  },

  'victoria-metrics': {
    proves: 'VictoriaMetrics checks the rendered scrape.yml (-promscrape.config.dryRun) and scrapes its jobs; a sample survives a restart',
    async check(stack) {
      const problems: string[] = [];
      expect(problems, 'scrape.yml dry run', await exec(stack, 'victoria-metrics', ['/victoria-metrics-prod', '-promscrape.config=/etc/victoria-metrics/scrape.yml', '-promscrape.config.dryRun']));
      expect(problems, 'the scrape jobs', await wget(stack, 'victoria-metrics', 'http://127.0.0.1:8428/api/v1/targets'), /"job":"victoria-metrics"/);
      return problems;
    },
    async write(stack) {
      const problems: string[] = [];
      expect(problems, 'import a sample', await wget(stack, 'victoria-metrics', 'http://127.0.0.1:8428/api/v1/import/prometheus', { post: `${MARK.replace(/-/g, '_')} 42` }));
      // make it searchable before the stop
      await wget(stack, 'victoria-metrics', 'http://127.0.0.1:8428/internal/force_flush');
      return problems;
    },
    async readBack(stack) {
      const problems: string[] = [];
      expect(problems, 'the sample after the restart', await wget(stack, 'victoria-metrics', `http://127.0.0.1:8428/api/v1/series?match[]=${MARK.replace(/-/g, '_')}`), new RegExp(MARK.replace(/-/g, '_')));
      return problems;
    },
  },

  alertmanager: {
    proves: 'amtool check-config passes on the rendered alertmanager.yml, and the running Alertmanager serves it (its receiver in /api/v2/status)',
    async check(stack) {
      const problems: string[] = [];
      expect(problems, 'amtool check-config', await exec(stack, 'alertmanager', ['/bin/amtool', 'check-config', '/etc/alertmanager/stackwright.yml']), /SUCCESS/);
      expect(problems, 'the loaded configuration', await wget(stack, 'alertmanager', 'http://127.0.0.1:9093/api/v2/status'), /receiver: default/);
      return problems;
    },
  },

  prometheus: {
    proves: 'promtool check config passes on the rendered prometheus.yml, and the running Prometheus scrapes its jobs',
    async check(stack) {
      const problems: string[] = [];
      expect(problems, 'promtool check config', await exec(stack, 'prometheus', ['/bin/promtool', 'check', 'config', '/etc/prometheus/prometheus.yml']), /SUCCESS/);
      expect(problems, 'the scrape jobs', await wget(stack, 'prometheus', 'http://127.0.0.1:9090/api/v1/targets'), /"job":"prometheus"/);
      return problems;
    },
  },

  'node-exporter': {
    proves: 'node_exporter runs with the rendered --path.rootfs=/host on the read-only host mount and exports the host\'s filesystems',
    async check(stack) {
      const problems: string[] = [];
      expect(problems, '/metrics', await wget(stack, 'node-exporter', 'http://127.0.0.1:9100/metrics'), /node_filesystem_size_bytes/);
      return problems;
    },
  },

  'restic-rest-server': {
    proves: 'rest-server takes the user the start command writes to the htpasswd file: the .env login creates a repository, no login and a wrong password get 401; the repository survives a restart',
    async check(stack) {
      const problems: string[] = [];
      const user = setting(stack, 'restic-rest-server', 'REST_USER');
      const password = setting(stack, 'restic-rest-server', 'REST_PASSWORD');
      const create = (u?: string, p?: string) => exec(stack, 'restic-rest-server', ['sh', '-c', `printf 'POST /${MARK}/?create=true HTTP/1.0\\r\\n%s\\r\\n' "$1" | nc -q 3 127.0.0.1 8000 | head -1`, 'sh', u === undefined ? '' : `Authorization: Basic ${Buffer.from(`${u}:${p}`).toString('base64')}\r\n`]);
      expect(problems, 'create a repository with the .env login', await create(user, password), / 200 /);
      expect(problems, 'no login', await create(), / 401 /);
      expect(problems, 'a wrong password', await create(user, `${password}x`), / 401 /);
      return problems;
    },
    async readBack(stack) {
      const problems: string[] = [];
      expect(problems, 'the repository after the restart', await exec(stack, 'restic-rest-server', ['ls', `/data/${MARK}`]), /keys/);
      return problems;
    },
  },

  miniflux: {
    proves: 'Miniflux reads DATABASE_URL, runs its migrations on the real PostgreSQL and creates the .env admin: the API logs it in, a wrong password gets 401; the admin is still there after a restart',
    async check(stack) {
      const problems: string[] = [];
      const user = setting(stack, 'miniflux', 'ADMIN_USERNAME');
      const password = setting(stack, 'miniflux', 'ADMIN_PASSWORD');
      expect(problems, 'GET /v1/me as the .env admin', await wget(stack, 'miniflux', 'http://127.0.0.1:8080/v1/me', { user, password }), /"is_admin":true/);
      expectRefused(problems, 'GET /v1/me with a wrong password', await wget(stack, 'miniflux', 'http://127.0.0.1:8080/v1/me', { user, password: `${password}x` }));
      return problems;
    },
  },

  rabbitmq: {
    proves: 'RabbitMQ creates the .env administrator (RABBITMQ_DEFAULT_USER/PASS) and no guest: it authenticates and a wrong password does not; the management API logs it in; the user survives a restart',
    async check(stack) {
      const problems: string[] = [];
      const user = setting(stack, 'rabbitmq', 'RABBITMQ_DEFAULT_USER');
      const password = setting(stack, 'rabbitmq', 'RABBITMQ_DEFAULT_PASS');
      expect(problems, 'authenticate the .env user', await exec(stack, 'rabbitmq', ['rabbitmqctl', 'authenticate_user', user, password]), /Success|Authenticating/);
      expectRefused(problems, 'a wrong password', await exec(stack, 'rabbitmq', ['rabbitmqctl', 'authenticate_user', user, `${password}x`]));
      const users = await exec(stack, 'rabbitmq', ['rabbitmqctl', '-q', 'list_users']);
      expect(problems, 'list_users', users, new RegExp(user));
      if (/\bguest\b/.test(users.stdout)) problems.push('the guest user exists');
      return problems;
    },
  },

  'node-red': {
    proves: 'Node-RED loads the rendered settings.js (--settings): the editor API needs a login, the .env admin gets a token and a wrong password does not; a flow deployed before a stop is there after the next start (/data)',
    async check(stack) {
      const problems: string[] = [];
      const user = setting(stack, 'node-red', 'ADMIN_USER');
      const password = setting(stack, 'node-red', 'ADMIN_PASSWORD');
      const token = (p: string) => nodeHttp(stack, 'node-red', 'http://127.0.0.1:1880/auth/token', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ client_id: 'node-red-admin', grant_type: 'password', scope: '*', username: user, password: p }) });
      expectStatus(problems, 'GET /flows without a login', await nodeHttp(stack, 'node-red', 'http://127.0.0.1:1880/flows'), [401]);
      expectStatus(problems, 'a token for the .env admin', await token(password), [200]);
      expectStatus(problems, 'a token for a wrong password', await token(`${password}x`), [401, 403]);
      return problems;
    },
    async write(stack) {
      const problems: string[] = [];
      const bearer = await nodeRedToken(stack);
      const flows = JSON.stringify([{ id: 'f1', type: 'tab', label: MARK }]);
      expectStatus(problems, 'deploy a flow', await nodeHttp(stack, 'node-red', 'http://127.0.0.1:1880/flows', { method: 'POST', headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' }, body: flows }), [200, 204]);
      return problems;
    },
    async readBack(stack) {
      const problems: string[] = [];
      const bearer = await nodeRedToken(stack);
      const r = await nodeHttp(stack, 'node-red', 'http://127.0.0.1:1880/flows', { headers: { authorization: `Bearer ${bearer}` } });
      expectStatus(problems, 'read the flows after the restart', r, [200]);
      if (!r.stdout.includes(MARK)) problems.push(`the deployed flow is gone after the restart: ${out(r)}`);
      return problems;
    },
  },

  n8n: {
    proves: 'n8n reads the rendered DB_* settings and migrates its schema on the real PostgreSQL as its own role; the owner account set up on the first visit logs in after a restart (in the database, with N8N_ENCRYPTION_KEY unchanged) and a wrong password does not',
    async check(stack) {
      const problems: string[] = [];
      const tables = await n8nSql(stack, "select count(*) from pg_tables where schemaname = 'public' and tableowner = 'n8n'");
      expect(problems, 'n8n\'s tables in its own database, owned by its role', tables, /^[1-9]\d+\s*$/);
      expect(problems, 'its migrations recorded', await n8nSql(stack, 'select count(*) from migrations'), /^[1-9]\d*\s*$/);
      return problems;
    },
    async write(stack) {
      const problems: string[] = [];
      // n8n answers /healthz (the manifest's health check) once it listens, before its REST routes are registered
      // (n8n@1.123.81 dist/abstract-server.js init() listens, dist/server.js start() adds the routes): wait for them
      let settings = await nodeHttp(stack, 'n8n', 'http://127.0.0.1:5678/rest/settings');
      for (let i = 0; i < 60 && status(settings) === 404; i++) {
        await new Promise((r) => setTimeout(r, 2000));
        settings = await nodeHttp(stack, 'n8n', 'http://127.0.0.1:5678/rest/settings');
      }
      if (!/"showSetupOnFirstLoad":true/.test(settings.stdout)) problems.push(`the first visit is not offered the owner setup: ${out(settings)}`);
      const setup = await nodeHttp(stack, 'n8n', 'http://127.0.0.1:5678/rest/owner/setup', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: N8N_OWNER.email, firstName: 'Stack', lastName: 'Wright', password: N8N_OWNER.password }) });
      expectStatus(problems, 'set up the owner', setup, [200, 201]);
      return problems;
    },
    async readBack(stack) {
      const problems: string[] = [];
      const login = (password: string) => nodeHttp(stack, 'n8n', 'http://127.0.0.1:5678/rest/login', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ emailOrLdapLoginId: N8N_OWNER.email, email: N8N_OWNER.email, password }) });
      expectStatus(problems, 'the owner logs in after the restart', await login(N8N_OWNER.password), [200]);
      expectStatus(problems, 'a wrong password', await login(`${N8N_OWNER.password}x`), [401]);
      return problems;
    },
  },

  verdaccio: {
    proves: 'Verdaccio starts on the rendered config.yaml and the htpasswd line the start command writes: `npm login`\'s request with the .env admin gets a token and a wrong password gets none, sign-up is closed, packages need a login, `npm whoami` with the token names the admin; a package published with npm while npmjs is unreachable (publish.allow_offline) is there after a restart (storage volume)',
    async check(stack) {
      const problems: string[] = [];
      const { user, password } = verdaccioAdmin(stack);
      const ok = await verdaccioLogin(stack, user, password);
      if (![200, 201].includes(ok.status) || !ok.token) problems.push(`npm login as the .env admin: HTTP ${ok.status}: ${ok.body.slice(0, 200)}`);
      const wrong = await verdaccioLogin(stack, user, `${password}x`);
      if (wrong.status < 400 || wrong.token) problems.push(`npm login with a wrong password: HTTP ${wrong.status}: ${wrong.body.slice(0, 200)}`);
      // max_users -1: a new name may not add itself (the image's default config lets anyone sign up)
      const signUp = await hostHttp(`${verdaccioUrl(stack)}/-/user/org.couchdb.user:${MARK}`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: MARK, password: 'Some-password-1' }) });
      if (signUp.status !== 409 || !/registration disabled/.test(signUp.body)) problems.push(`sign-up: want HTTP 409 registration disabled, got ${signUp.status}: ${signUp.body.slice(0, 200)}`);
      // access: $authenticated (the image's default config lets anyone read)
      const anonymous = await hostHttp(`${verdaccioUrl(stack)}/${MARK}`);
      if (![401, 403].includes(anonymous.status)) problems.push(`a package read without a login: want HTTP 401/403, got ${anonymous.status}`);
      // npm whoami asks the registry only with a token (with user:password it prints the configured name)
      expect(problems, 'npm whoami with the login\'s token', await npmAgainst(stack, ['whoami'], { token: ok.token }), new RegExp(`^${user}\\s*$`));
      expectRefused(problems, 'npm whoami with a token Verdaccio did not issue', await npmAgainst(stack, ['whoami'], { token: Buffer.from(`${MARK}:not-a-token`).toString('base64') }));
      return problems;
    },
    async write(stack) {
      const problems: string[] = [];
      const { user, password } = verdaccioAdmin(stack);
      const { token } = await verdaccioLogin(stack, user, password);
      const pkg = mkdtempSync(path.join(os.tmpdir(), 'stackwright-verdaccio-pkg-'));
      try {
        writeFileSync(path.join(pkg, 'package.json'), JSON.stringify({ name: MARK, version: '1.0.0', description: 'published by the engine tier', license: 'MIT' }));
        writeFileSync(path.join(pkg, 'index.js'), `module.exports = '${MARK}';\n`);
        const r = await npmAgainst(stack, ['publish', '--loglevel=error'], { token, cwd: pkg });
        if (r.code !== 0) problems.push(`npm publish: exit ${r.code}: ${r.stderr.trim().slice(-400)}`);
      } finally {
        rmSync(pkg, { recursive: true, force: true });
      }
      return problems;
    },
    async readBack(stack) {
      const problems: string[] = [];
      const { user, password } = verdaccioAdmin(stack);
      const { token } = await verdaccioLogin(stack, user, password);
      expect(problems, 'npm view of the package after the restart', await npmAgainst(stack, ['view', MARK, 'version'], { token }), /^1\.0\.0\s*$/);
      return problems;
    },
  },

  phpmyadmin: {
    proves: 'phpMyAdmin connects to the server the rendered PMA_HOST/PMA_PORT name (read by the kit\'s config.inc.php, written from upstream\'s): the stack\'s MySQL user from .env logs in through the cookie login form and sees its database, a wrong password is refused with MySQL\'s access-denied error; PHP takes UPLOAD_LIMIT',
    async check(stack) {
      const problems: string[] = [];
      const user = setting(stack, 'mysql', 'MYSQL_USER');
      const password = setting(stack, 'mysql', 'MYSQL_PASSWORD');
      const database = setting(stack, 'mysql', 'MYSQL_DATABASE');
      const ok = await phpMyAdminLogin(stack, user, password, database);
      expect(problems, 'log in as the .env MySQL user', ok, new RegExp(`LOGGED-IN[\\s\\S]*db=${database}`));
      if (!/pmaAuth-1/.test(ok.stdout)) problems.push(`no login cookie after the .env login: ${out(ok)}`);
      const uploadLimit = stack.env('PHPMYADMIN_UPLOAD_LIMIT') ?? '';
      if (!new RegExp(`Max: ${uploadLimit.replace(/M$/, '')}\\s*MiB`).test(ok.stdout)) problems.push(`the import page does not offer the UPLOAD_LIMIT ${uploadLimit}: ${out(ok)}`);
      const wrong = await phpMyAdminLogin(stack, user, `${password}x`, database);
      expect(problems, 'a wrong password', wrong, /LOGIN-FORM/);
      if (/LOGGED-IN/.test(wrong.stdout)) problems.push(`a wrong password logged in: ${out(wrong)}`);
      if (!/Access denied/i.test(wrong.stdout)) problems.push(`a wrong password without MySQL's access-denied error: ${out(wrong)}`);
      return problems;
    },
  },

  adminer: {
    proves: 'Adminer serves its login form with the Server field filled from the rendered ADMINER_DEFAULT_SERVER (the stack\'s PostgreSQL); the PostgreSQL superuser from .env logs in through that form (its Logout button and database shown), and a wrong password is refused with PostgreSQL\'s authentication error',
    async check(stack) {
      const problems: string[] = [];
      const form = await bash(stack, 'adminer', 'wget -q -O - http://127.0.0.1:8080/');
      expect(problems, 'the login form', form, /name="auth\[server\]" value="postgresql"/);
      const user = setting(stack, 'postgresql', 'POSTGRES_USER');
      const password = setting(stack, 'postgresql', 'POSTGRES_PASSWORD');
      const database = setting(stack, 'postgresql', 'POSTGRES_DB');
      const ok = await adminerLogin(stack, user, password, database);
      expect(problems, 'log in as the .env PostgreSQL superuser', ok, /LOGGED-IN/);
      const wrong = await adminerLogin(stack, user, `${password}x`, database);
      expect(problems, 'a wrong password', wrong, /LOGIN-FORM/);
      if (!/password authentication failed/i.test(wrong.stdout)) problems.push(`a wrong password without PostgreSQL's authentication error: ${out(wrong)}`);
      return problems;
    },
  },

  actual: {
    proves: 'the sync server runs as 1001:1001 with its account database on the /data volume and asks its first visitor for the server password; the password set then logs in and a wrong one is refused, the session token validates; after a restart the server is still set up (no second first visit) and the password still logs in',
    async check(stack) {
      const problems: string[] = [];
      expect(problems, 'the account database on the volume, owned by 1001', await exec(stack, 'actual', ['stat', '-c', '%u %n', '/data/server-files/account.sqlite']), /^1001 /);
      const boot = await actualApi(stack, '/account/needs-bootstrap');
      expectStatus(problems, 'GET /account/needs-bootstrap', boot, [200]);
      return problems;
    },
    async write(stack) {
      const problems: string[] = [];
      const boot = await actualApi(stack, '/account/needs-bootstrap');
      if (!/"bootstrapped":false/.test(boot.stdout)) problems.push(`a new server does not ask for its password: ${out(boot)}`);
      expectStatus(problems, 'the first visitor sets the server password', await actualApi(stack, '/account/bootstrap', { password: ACTUAL_PASSWORD }), [200]);
      problems.push(...(await actualLogins(stack)));
      return problems;
    },
    async readBack(stack) {
      const problems: string[] = [];
      const boot = await actualApi(stack, '/account/needs-bootstrap');
      if (!/"bootstrapped":true/.test(boot.stdout)) problems.push(`the server asks for a password again after the restart: ${out(boot)}`);
      problems.push(...(await actualLogins(stack)));
      return problems;
    },
  },

  wiremock: {
    proves: 'WireMock runs with the rendered WIREMOCK_OPTIONS: the admin API takes admin and the .env password and refuses no login and a wrong password; a stub created with persistent: true answers on the mocked endpoint and is there after a restart (mappings/ on the volume)',
    async check(stack) {
      const problems: string[] = [];
      const password = setting(stack, 'wiremock', 'ADMIN_PASSWORD');
      expect(problems, 'the admin API with the .env password', await wiremockAdmin(stack, '/__admin/mappings', `admin:${password}`), /^200 /);
      expect(problems, 'the admin API without a login', await wiremockAdmin(stack, '/__admin/mappings'), /^401 /);
      expect(problems, 'the admin API with a wrong password', await wiremockAdmin(stack, '/__admin/mappings', `admin:${password}x`), /^401 /);
      return problems;
    },
    async write(stack) {
      const problems: string[] = [];
      const stub = JSON.stringify({ request: { method: 'GET', url: `/${MARK}` }, response: { status: 200, body: MARK }, persistent: true });
      expect(problems, 'create a persistent stub', await wiremockAdmin(stack, '/__admin/mappings', `admin:${setting(stack, 'wiremock', 'ADMIN_PASSWORD')}`, stub), /^201 /);
      expect(problems, 'the stub answers', await exec(stack, 'wiremock', ['curl', '-fsS', `http://127.0.0.1:8080/${MARK}`]), new RegExp(`^${MARK}$`));
      return problems;
    },
    async readBack(stack) {
      const problems: string[] = [];
      expect(problems, 'the stub answers after the restart', await exec(stack, 'wiremock', ['curl', '-fsS', `http://127.0.0.1:8080/${MARK}`]), new RegExp(`^${MARK}$`));
      return problems;
    },
  },

  unleash: {
    proves: 'Unleash reads DATABASE_URL, migrates its schema on the real PostgreSQL and creates the .env admin and the INIT_*_API_TOKENS: the admin logs in and a wrong password does not, the admin token is accepted and a wrong one refused, the backend token reads the client API',
    async check(stack) {
      const problems: string[] = [];
      const base = 'http://127.0.0.1:4242';
      const login = (p: string) => nodeHttp(stack, 'unleash', `${base}/auth/simple/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: setting(stack, 'unleash', 'UNLEASH_DEFAULT_ADMIN_USERNAME'), password: p }) });
      const password = setting(stack, 'unleash', 'UNLEASH_DEFAULT_ADMIN_PASSWORD');
      expectStatus(problems, 'log in as the .env admin', await login(password), [200]);
      expectStatus(problems, 'log in with a wrong password', await login(`${password}x`), [401]);
      const admin = `*:*.${setting(stack, 'unleash', 'ADMIN_TOKEN_SECRET')}`;
      expectStatus(problems, 'the admin API with the admin token', await nodeHttp(stack, 'unleash', `${base}/api/admin/projects`, { headers: { authorization: admin } }), [200]);
      expectStatus(problems, 'the admin API with a wrong token', await nodeHttp(stack, 'unleash', `${base}/api/admin/projects`, { headers: { authorization: `${admin}0` } }), [401, 403]);
      const backend = `default:development.${setting(stack, 'unleash', 'BACKEND_TOKEN_SECRET')}`;
      expectStatus(problems, 'the client API with the backend token', await nodeHttp(stack, 'unleash', `${base}/api/client/features`, { headers: { authorization: backend } }), [200]);
      return problems;
    },
  },
};

/** The owner the n8n check sets up on the first visit (n8n asks for 8+ characters, a digit and a capital). */
const N8N_OWNER = { email: 'owner@stackwright.test', password: 'Stackwright-check-1' };

/** One query in n8n's own database, as the stack's PostgreSQL superuser. */
function n8nSql(stack: Stack, query: string): Promise<CommandResult> {
  return exec(stack, 'postgresql', ['psql', '-X', '-U', stack.env('POSTGRESQL_POSTGRES_USER') ?? 'stack', '-d', 'n8n', '-tAc', query]);
}

/** An editor API token for Node-RED's .env admin. */
async function nodeRedToken(stack: Stack): Promise<string> {
  const r = await nodeHttp(stack, 'node-red', 'http://127.0.0.1:1880/auth/token', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ client_id: 'node-red-admin', grant_type: 'password', scope: '*', username: setting(stack, 'node-red', 'ADMIN_USER'), password: setting(stack, 'node-red', 'ADMIN_PASSWORD') }) });
  return (JSON.parse(r.stdout.split('\n').slice(1).join('\n') || '{}') as { access_token?: string }).access_token ?? '';
}

/** Verdaccio's admin as .env holds it. */
function verdaccioAdmin(stack: Stack): { user: string; password: string } {
  return { user: setting(stack, 'verdaccio', 'VERDACCIO_ADMIN_USERNAME'), password: setting(stack, 'verdaccio', 'VERDACCIO_ADMIN_PASSWORD') };
}

/**
 * npm login's request for an existing user (npm-profile's couch login: the PUT again with basic auth after the 409
 * of a user that exists): the status, and the token Verdaccio hands out.
 */
async function verdaccioLogin(stack: Stack, user: string, password: string): Promise<{ status: number; body: string; token: string }> {
  const r = await hostHttp(`${verdaccioUrl(stack)}/-/user/org.couchdb.user:${encodeURIComponent(user)}`, { method: 'PUT', headers: { 'content-type': 'application/json', authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}` }, body: JSON.stringify({ name: user, password }) });
  let token = '';
  try { token = (JSON.parse(r.body) as { token?: string }).token ?? ''; } catch { /* not JSON: no token */ }
  return { ...r, token };
}

/** The registry at the host port the stack publishes it on (where a user's npm reaches it). */
function verdaccioUrl(stack: Stack): string {
  return `http://127.0.0.1:${stack.env('VERDACCIO_PORT_4873') ?? '4873'}`;
}

/** An HTTP request from the test process (to a port the stack publishes on the host). */
async function hostHttp(url: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<{ status: number; body: string }> {
  try {
    const r = await fetch(url, init);
    return { status: r.status, body: await r.text() };
  } catch (e) {
    return { status: 0, body: (e as Error).message };
  }
}

/** The host's npm (the client a user runs) against the stack's Verdaccio, with a throwaway user config holding the token. */
async function npmAgainst(stack: Stack, args: string[], auth: { token: string; cwd?: string }): Promise<CommandResult> {
  const registry = `${verdaccioUrl(stack)}/`;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'stackwright-npmrc-'));
  const key = registry.replace(/^https?:/, '');
  writeFileSync(path.join(dir, 'npmrc'), `registry=${registry}\n${key}:_authToken=${auth.token}\n`);
  try {
    return await command('npm', [...args, '--userconfig', path.join(dir, 'npmrc'), '--registry', registry, '--no-audit', '--no-fund', '--cache', path.join(dir, 'cache')], { cwd: auth.cwd ?? dir, timeoutMs: 120_000 });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * phpMyAdmin's cookie login as a browser does it, inside its container with curl: the login page's token, the
 * form posted, then the server's database page and the import page with the session. Prints the cookie names,
 * LOGGED-IN or LOGIN-FORM (the page asks for a login again), the login page's error and the pages' text.
 */
function phpMyAdminLogin(stack: Stack, user: string, password: string, database: string): Promise<CommandResult> {
  return bash(stack, 'phpmyadmin', `set -e
j=$(mktemp); base=http://127.0.0.1
token=$(curl -fsS -c "$j" -b "$j" "$base/index.php?route=/" | grep -o 'name="token" value="[^"]*"' | head -1 | sed 's/.*value="//; s/"$//')
[ -n "$token" ] || { echo "no token on the login page"; exit 1; }
post=$(curl -fsS -c "$j" -b "$j" --data-urlencode "pma_username=$1" --data-urlencode "pma_password=$2" --data-urlencode server=1 --data-urlencode "token=$token" --data-urlencode route=/ "$base/index.php?route=/")
cut -f6 "$j" | grep -v '^#' | tr '\\n' ' '; echo
page=$(curl -fsS -c "$j" -b "$j" "$base/index.php?route=/server/databases&server=1")
if printf '%s' "$page" | grep -q 'id="input_password"'; then
  echo LOGIN-FORM; printf '%s\\n%s' "$post" "$page" | grep -o -i 'access denied[^<]*' | head -1
else
  echo LOGGED-IN; printf '%s' "$page" | grep -o "db=$3[&\\"]" | head -1
  curl -fsS -c "$j" -b "$j" "$base/index.php?route=/server/import&server=1" | grep -o '(Max: [^)]*)' | head -1
fi`, user, password, database);
}

/**
 * Adminer's login form posted as a browser does (the form loaded first, the session cookie kept, the redirect
 * followed): LOGGED-IN when the page that follows has Adminer's Logout button, else LOGIN-FORM and the error it shows.
 */
function adminerLogin(stack: Stack, user: string, password: string, database: string): Promise<CommandResult> {
  // the form is fetched first, as a browser does: Adminer keeps a token in the session it starts there, and a login
  // posted without one fails as "Session expired" whatever the password
  return bash(stack, 'adminer', `j=$(mktemp)
wget -q -O /dev/null --keep-session-cookies --save-cookies "$j" http://127.0.0.1:8080/
page=$(wget -q -O - --content-on-error --keep-session-cookies --save-cookies "$j" --load-cookies "$j" \\
  --post-data "auth[driver]=pgsql&auth[server]=postgresql&auth[username]=$1&auth[password]=$2&auth[db]=$3" http://127.0.0.1:8080/)
if printf '%s' "$page" | grep -q 'name="logout"'; then echo LOGGED-IN; else echo LOGIN-FORM; printf '%s' "$page" | grep -o -i "class='error'>[^<]*" | head -1; fi`, user, password, database);
}

/** The server password the Actual check sets as the first visitor. */
const ACTUAL_PASSWORD = 'Stackwright-check-1';

/** A GET (or, with a body, a JSON POST) to Actual's API inside its container. */
function actualApi(stack: Stack, route: string, body?: unknown, headers: Record<string, string> = {}): Promise<CommandResult> {
  return nodeHttp(stack, 'actual', `http://127.0.0.1:5006${route}`, body === undefined ? { headers } : { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
}

/** The server password logs in and its token validates; a wrong password gets no token. */
async function actualLogins(stack: Stack): Promise<string[]> {
  const problems: string[] = [];
  const login = await actualApi(stack, '/account/login', { loginMethod: 'password', password: ACTUAL_PASSWORD });
  const token = /"token":"([^"]+)"/.exec(login.stdout)?.[1];
  if (status(login) !== 200 || !token) problems.push(`log in with the server password: ${out(login)}`);
  else expect(problems, 'the session token validates', await actualApi(stack, '/account/validate', undefined, { 'x-actual-token': token }), /"validated":true/);
  const wrong = await actualApi(stack, '/account/login', { loginMethod: 'password', password: `${ACTUAL_PASSWORD}x` });
  if (/"token"/.test(wrong.stdout) || !/invalid-password/.test(wrong.stdout)) problems.push(`a wrong password: ${out(wrong)}`);
  return problems;
}

/** WireMock's admin API with curl inside its container (with `user:password`, and a JSON body to POST): the status, a space, the body. */
function wiremockAdmin(stack: Stack, route: string, login?: string, post?: string): Promise<CommandResult> {
  const args = ['curl', '-sS', '-o', '/tmp/body', '-w', '%{http_code} ', ...(login ? ['-u', login] : []), ...(post ? ['-H', 'content-type: application/json', '--data', post] : []), `http://127.0.0.1:8080${route}`];
  return bash(stack, 'wiremock', '"$@" && cat /tmp/body', ...args);
}
