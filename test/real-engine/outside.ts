// A stand-in for the internet: an HTTP listener in a network namespace of its own, reached from this machine
// through a veth pair, so a container's call to it is forwarded out of the machine as a call to a public
// address would be (a container on Docker's bridge gets there; one on an internal network does not). It logs
// the path of every request it hears. Needs root and iproute2, as the engine tier does.
import { spawn, type ChildProcess } from 'node:child_process';
import { command } from './engine.js';

const LISTENER = `
const http = require('node:http');
http.createServer((req, res) => { process.stdout.write(req.url + '\\n'); res.end('heard\\n'); })
  .listen(Number(process.argv[2]), process.argv[1], () => process.stdout.write('listening\\n'));
`;

export class Outside {
  private output = '';

  private constructor(private readonly namespace: string, private readonly link: string, private readonly child: ChildProcess, readonly address: string, readonly port: number) {
    child.stdout!.on('data', (chunk: Buffer) => (this.output += chunk.toString()));
  }

  /** The URL a container calls to reach it. */
  url(path: string): string {
    return `http://${this.address}:${this.port}${path}`;
  }

  /** Every path it was asked for, in order. */
  heard(): string[] {
    return this.output.split('\n').filter((line) => line.startsWith('/'));
  }

  static async start(port = 18_998): Promise<Outside> {
    // one per process; a namespace left by a killed run of the same pid is taken down first
    const id = process.pid % 100_000;
    const namespace = `stackwright-outside-${id}`;
    const [link, peer] = [`swo${id}a`, `swo${id}b`];
    const [host, far] = ['10.231.0.1', '10.231.0.2'];
    await command('ip', ['netns', 'del', namespace]);
    await command('ip', ['link', 'del', link]);
    const steps: string[][] = [
      ['netns', 'add', namespace],
      ['link', 'add', link, 'type', 'veth', 'peer', 'name', peer],
      ['link', 'set', peer, 'netns', namespace],
      ['addr', 'add', `${host}/30`, 'dev', link],
      ['link', 'set', link, 'up'],
      ['-n', namespace, 'addr', 'add', `${far}/30`, 'dev', peer],
      ['-n', namespace, 'link', 'set', peer, 'up'],
      ['-n', namespace, 'route', 'add', 'default', 'via', host],
    ];
    for (const step of steps) {
      const r = await command('ip', step);
      if (r.code !== 0) throw new Error(`ip ${step.join(' ')} failed: ${r.stderr.trim()}`);
    }
    const child = spawn('ip', ['netns', 'exec', namespace, process.execPath, '-e', LISTENER, far, String(port)], { stdio: ['ignore', 'pipe', 'inherit'] });
    const outside = new Outside(namespace, link, child, far, port);
    for (let i = 0; i < 50 && !outside.output.includes('listening'); i++) {
      if (child.exitCode !== null) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    if (!outside.output.includes('listening')) {
      await outside.stop();
      throw new Error('the stand-in for the internet did not start listening');
    }
    return outside;
  }

  async stop(): Promise<void> {
    this.child.kill();
    await command('ip', ['netns', 'del', this.namespace]);
    await command('ip', ['link', 'del', this.link]);
  }
}
