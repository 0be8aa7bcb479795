// HTTP/1.1 over a raw socket, for what a client library would not send (dot segments, absolute-form
// targets, bad framing) or would hide (resets, a close without an answer).
import net from 'node:net';

export interface RawAnswer { text: string; error?: string }

/**
 * Sends `bytes` (or lets `write` drive the socket) on a new connection and collects everything the server
 * answers until it closes; `error` is the socket error's code (ECONNRESET for a reset).
 */
export function raw(port: number, bytes: string | Buffer | ((socket: net.Socket) => void), opts: { localAddress?: string } = {}): Promise<RawAnswer> {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host: '127.0.0.1', localAddress: opts.localAddress });
    let text = '';
    socket.on('connect', () => (typeof bytes === 'function' ? bytes(socket) : socket.write(bytes)));
    socket.on('data', (c) => { text += c.toString('latin1'); });
    socket.on('error', (e: NodeJS.ErrnoException) => resolve({ text, error: e.code }));
    socket.on('close', () => resolve({ text }));
  });
}

export const statusOf = (response: string) => Number(/^HTTP\/1\.1 (\d{3}) /.exec(response)?.[1]);
export const headerOf = (response: string, name: string) => new RegExp(`\r\n${name}: ([^\r]*)\r\n`, 'i').exec(response.slice(0, response.indexOf('\r\n\r\n') + 2))?.[1];
export const bodyOf = (response: string) => JSON.parse(response.slice(response.indexOf('\r\n\r\n') + 4));
