// A local registry (Debian's docker-registry, Distribution 2.8) on loopback, so update tests pull a newer
// tag for real. The engine treats 127.0.0.0/8 registries as plain HTTP without configuration.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { dockerOk } from './engine.js';

export class LocalRegistry {
  private constructor(readonly host: string, private readonly child: ChildProcess) {}

  static async start(): Promise<LocalRegistry> {
    const port = await freePort();
    const dir = mkdtempSync(path.join(os.tmpdir(), 'stackwright-registry-'));
    const config = path.join(dir, 'config.yml');
    writeFileSync(config, [
      'version: 0.1',
      'log: { level: warn }',
      `storage: { filesystem: { rootdirectory: ${JSON.stringify(path.join(dir, 'data'))} }, delete: { enabled: true } }`,
      `http: { addr: "127.0.0.1:${port}" }`,
      '',
    ].join('\n'));
    const child = spawn('docker-registry', ['serve', config], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr!.setEncoding('utf8').on('data', (c: string) => { stderr += c; });
    for (let i = 0; i < 50; i++) {
      try {
        if ((await fetch(`http://127.0.0.1:${port}/v2/`)).ok) return new LocalRegistry(`127.0.0.1:${port}`, child);
      } catch { /* not listening yet */ }
      await new Promise((r) => setTimeout(r, 200));
    }
    child.kill();
    throw new Error(`docker-registry did not answer on 127.0.0.1:${port}:\n${stderr}`);
  }

  /** Pushes a local image under this registry as name:tag and removes the local tag, so only a pull brings it. */
  async push(localImage: string, name: string, tag: string): Promise<string> {
    const reference = `${this.host}/${name}:${tag}`;
    await dockerOk(['tag', localImage, reference]);
    await dockerOk(['push', reference]);
    await dockerOk(['rmi', reference]);
    return reference;
  }

  stop(): void {
    this.child.kill();
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    }).on('error', reject);
  });
}
