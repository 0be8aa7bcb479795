// Debian's `pebble`, the ACME test server, as the CA a stack with a domain gets its certificates from
// (through the generated STACK_ACME_CA setting). It listens on the Docker bridge's gateway address, which
// containers reach as `host-gateway`; it validates nothing (PEBBLE_VA_ALWAYS_VALID), since no public DNS
// points the test's domain here. Its own HTTPS certificate comes from a throwaway CA made with openssl.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { bridgeGateway, command } from './engine.js';

/** The name the proxy container reaches Pebble by (mapped to the host gateway in the test's override). */
export const PEBBLE_HOST = 'pebble.test';
const DIRECTORY_PORT = 14000;
const MANAGEMENT_PORT = 15000;

async function openssl(args: string[], cwd: string): Promise<void> {
  const result = await command('openssl', args, { cwd });
  if (result.code !== 0) throw new Error(`openssl ${args.join(' ')}:\n${result.stderr}`);
}

export class Pebble {
  private constructor(
    private readonly dir: string,
    private readonly child: ChildProcess,
    /** The bridge gateway address Pebble listens on. */
    readonly address: string,
    /** PEM of the CA that signed Pebble's own HTTPS certificate: what a client of the ACME directory trusts. */
    readonly tlsCa: string,
  ) {}

  /** The ACME directory URL as the proxy container sees it. */
  get directory(): string {
    return `https://${PEBBLE_HOST}:${DIRECTORY_PORT}/dir`;
  }

  /** The path of the file holding tlsCa (to mount into the proxy container). */
  get tlsCaFile(): string {
    return path.join(this.dir, 'tls-ca.pem');
  }

  static async start(): Promise<Pebble> {
    const address = await bridgeGateway();
    const dir = mkdtempSync(path.join(os.tmpdir(), 'stackwright-pebble-'));
    await openssl(['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '2', '-subj', '/CN=stackwright test TLS CA', '-keyout', 'tls-ca.key', '-out', 'tls-ca.pem'], dir);
    await openssl(['req', '-newkey', 'rsa:2048', '-nodes', '-subj', `/CN=${PEBBLE_HOST}`, '-keyout', 'key.pem', '-out', 'cert.csr'], dir);
    writeFileSync(path.join(dir, 'san.ext'), `subjectAltName=DNS:${PEBBLE_HOST},IP:127.0.0.1,IP:${address}\n`);
    await openssl(['x509', '-req', '-in', 'cert.csr', '-CA', 'tls-ca.pem', '-CAkey', 'tls-ca.key', '-CAcreateserial', '-days', '2', '-extfile', 'san.ext', '-out', 'cert.pem'], dir);
    writeFileSync(path.join(dir, 'pebble.json'), JSON.stringify({
      pebble: {
        listenAddress: `${address}:${DIRECTORY_PORT}`,
        managementListenAddress: `127.0.0.1:${MANAGEMENT_PORT}`,
        certificate: path.join(dir, 'cert.pem'),
        privateKey: path.join(dir, 'key.pem'),
        httpPort: 5002,
        tlsPort: 5001,
        ocspResponderURL: '',
        externalAccountBindingRequired: false,
      },
    }));
    const log = openSync(path.join(dir, 'pebble.log'), 'a');
    const child = spawn('pebble', ['-config', path.join(dir, 'pebble.json')], {
      env: { ...process.env, PEBBLE_VA_ALWAYS_VALID: '1', PEBBLE_VA_NOSLEEP: '1', PEBBLE_WFE_NONCEREJECT: '0' },
      stdio: ['ignore', log, log],
    });
    const pebble = new Pebble(dir, child, address, readFileSync(path.join(dir, 'tls-ca.pem'), 'utf8'));
    for (let i = 0; i < 50; i++) {
      if (child.exitCode !== null) break;
      if (await pebble.root().then(() => true, () => false)) return pebble;
      await new Promise((r) => setTimeout(r, 200));
    }
    pebble.stop();
    throw new Error(`pebble did not start: ${pebble.log()}`);
  }

  /** PEM of the root Pebble issues certificates under (it makes a new one at every start). */
  root(): Promise<string> {
    return new Promise((resolve, reject) => {
      const req = https.get({ host: '127.0.0.1', port: MANAGEMENT_PORT, path: '/roots/0', ca: this.tlsCa, servername: PEBBLE_HOST, timeout: 5000 }, (res) => {
        let body = '';
        res.setEncoding('utf8').on('data', (c: string) => { body += c; });
        res.on('end', () => (res.statusCode === 200 ? resolve(body) : reject(new Error(`pebble /roots/0: ${res.statusCode}`))));
      });
      req.on('timeout', () => req.destroy(new Error('timed out')));
      req.on('error', reject);
    });
  }

  running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  log(): string {
    return readFileSync(path.join(this.dir, 'pebble.log'), 'utf8');
  }

  stop(): void {
    this.child.kill();
    rmSync(this.dir, { recursive: true, force: true });
  }
}
