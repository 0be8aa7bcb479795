// Bare-metal OpenClaw (issue 20): approving a browser of a gateway that listens on STACK_NATIVE_BIND only.
// The launcher and the devices helper are taken from a generated native/openclaw.sh and run with the openclaw
// package from npm at the catalogue's pin, in a private network namespace where 10.213.0.1 stands for the
// Docker bridge gateway (a private, non-loopback address, as on a real host), so port 18789 is the real one.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { readConfig } from '../../src/config.js';
import { Generator } from '../../src/pipeline/generate.js';
import { agentPackage, run } from '../support/agents.js';
import { heredoc } from '../support/native-launch.js';
import { shippedCatalogue } from '../support/server.js';

const generator = new Generator(shippedCatalogue(), readConfig({}).templatesDir, 5);
const cli = path.join(agentPackage('openclaw', 'openclaw'), 'openclaw.mjs');
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'stackwright-openclaw-native-'));
after(() => fs.rmSync(root, { recursive: true, force: true }));

test('the README\'s approval step approves a browser of a native gateway (and the old --url step cannot)', async () => {
  const { files } = generator.generate({ name: 'ocbm', preset: 'web-agent', proxy: 'caddy', deploymentType: 'bare-metal' });
  const native = files['native/openclaw.sh'];
  const bin = path.join(root, 'bin');
  fs.mkdirSync(bin);
  fs.writeFileSync(path.join(bin, 'openclaw'), `#!/bin/sh\nexec "${process.execPath}" "${cli}" "$@"\n`, { mode: 0o755 });
  fs.writeFileSync(path.join(root, 'run.sh'), heredoc(native, 'LAUNCH'), { mode: 0o755 });
  fs.writeFileSync(path.join(root, 'devices.sh'), heredoc(native, 'DEVICES'), { mode: 0o755 });
  const home = path.join(root, 'state');
  fs.mkdirSync(home);
  const token = crypto.randomBytes(32).toString('hex');
  // the unit's environment file, as native/openclaw.sh writes it (KEY="value" lines)
  const envFile = path.join(root, 'openclaw.env');
  fs.writeFileSync(envFile, Object.entries({ STACK_NATIVE_BIND: '10.213.0.1', HOME: home, OPENCLAW_GATEWAY_TOKEN: token, OPENCLAW_DISABLE_BONJOUR: '1', OPENCLAW_PUBLIC_URL: 'http://localhost/openclaw' })
    .map(([k, v]) => `${k}="${v}"\n`).join(''));
  const readme = files['README.md'];
  assert.ok(readme.includes('`sudo /opt/stackwright/openclaw-devices.sh /etc/stackwright/ocbm/openclaw.env list`'), 'the README names the helper with this stack\'s env file');
  assert.ok(!readme.includes('--url ws://'), 'no --url step');
  // Inside the namespace: the gateway as the unit starts it; the old README step; the helper's list and approve;
  // then the old step again, which now connects because the CLI's own device was the one approved.
  const script = `
set -u
ip link set lo up && ip addr add 10.213.0.1/32 dev lo
set -a; . "${envFile}"; set +a
"${root}/run.sh" > "${root}/gateway.log" 2>&1 &
gw=$!
for _ in $(seq 480); do "${process.execPath}" -e 'fetch("http://10.213.0.1:18789/healthz").then((r)=>process.exit(r.ok?0:1),()=>process.exit(1))' && break; sleep 0.5; done
echo "== old"
OPENCLAW_ALLOW_INSECURE_PRIVATE_WS=1 openclaw devices list --url ws://10.213.0.1:18789 --token "$OPENCLAW_GATEWAY_TOKEN" 2>&1 | grep -v '^    at '
echo "== list"
# the CLI gives up on the gateway after its own 10 s: on a box loaded by other suites one try can time out
for _ in 1 2 3; do listed=$("${root}/devices.sh" "${envFile}" list 2>&1); case $listed in *"Pending ("*) break ;; esac; done
printf '%s\n' "$listed"
id=$(HOME="$HOME" "${root}/devices.sh" "${envFile}" list --json 2>/dev/null | "${process.execPath}" -e 'let s="";process.stdin.on("data",(d)=>s+=d).on("end",()=>{const j=JSON.parse(s.slice(s.indexOf("{")));process.stdout.write(j.pending[0]?.requestId??"")})')
echo "== approve $id"
"${root}/devices.sh" "${envFile}" approve "$id" 2>&1
echo "== again"
OPENCLAW_ALLOW_INSECURE_PRIVATE_WS=1 openclaw devices list --url ws://10.213.0.1:18789 --token "$OPENCLAW_GATEWAY_TOKEN" --json 2>&1 | grep -v '^    at '
echo "== usage"
"${root}/devices.sh" 2>&1; echo "exit $?"
kill "$gw"
`;
  const unshare = process.getuid?.() === 0 ? ['-n'] : ['-rn'];
  const res = await run('unshare', [...unshare, 'bash', '-c', script], { env: { PATH: `${bin}:${process.env.PATH}`, NO_COLOR: '1' }, timeoutMs: 600_000 });
  const out = res.stdout + res.stderr;
  const section = (name: string) => out.split(`== ${name}`)[1]?.split('\n== ')[0] ?? '';
  assert.match(section('old'), /pairing required/, `${out}\n${fs.readFileSync(path.join(root, 'gateway.log'), 'utf8')}`);
  assert.match(section('list'), /using local fallback/, out);
  assert.match(section('list'), /Pending \(1\)/, out);
  const approve = out.split('== approve ')[1] ?? '';
  assert.match(approve, /^[0-9a-f-]{36}\n/, out);
  assert.match(approve, /Approved [0-9a-f]{64}/, out);
  const again = section('again');
  assert.doesNotMatch(again, /pairing required/, out);
  assert.match(again, /"paired": \[/, out);
  assert.match(section('usage'), /usage: sudo .*openclaw-devices\.sh|usage: sudo .*devices\.sh/, out);
  assert.match(section('usage'), /exit 2/, out);
});
