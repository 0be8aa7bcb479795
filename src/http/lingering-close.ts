// Lingering close (RFC 9112 §9.6): a server that answers before it has read the whole request (413 for
// an oversized upload) must not close the connection at once. Closing a socket whose receive buffer
// still holds unread bytes makes the kernel send a reset, and a reset can reach the client before it
// has read the answer, so it sees "connection reset" instead of 413. Instead, the answer is sent with
// Connection: close, the server half-closes (FIN after the answer), and it keeps reading and discarding
// what the client still sends, for a bounded time, until the client closes its side.
import type { IncomingMessage } from 'node:http';
import type net from 'node:net';

/** At most this long from the answer to the close, however much the client still sends (nginx: lingering_time). */
export const LINGER_TOTAL_MS = 30_000;
/** Closed sooner when nothing arrives for this long (nginx: lingering_timeout). */
export const LINGER_IDLE_MS = 5_000;

const lingering = new WeakSet<net.Socket>();

/**
 * Marks the request's connection to close gracefully once its answer is written. The rest of the body
 * is discarded as it arrives (never buffered). Node closes a Connection: close socket with destroySoon()
 * once the last answer is flushed; on this socket that becomes the lingering close.
 */
export function lingerAfterAnswer(req: IncomingMessage): void {
  req.resume();
  const socket = req.socket as net.Socket | null;
  if (!socket || lingering.has(socket)) return;
  lingering.add(socket);
  let started = false;
  socket.destroySoon = function lingeringClose(this: net.Socket) {
    if (started) {
      // called again (the client ended its side as well): nothing more to wait for
      this.destroy();
      return;
    }
    started = true;
    this.end();
    const total = setTimeout(() => this.destroy(), LINGER_TOTAL_MS);
    total.unref();
    this.setTimeout(LINGER_IDLE_MS, () => this.destroy());
    this.once('close', () => clearTimeout(total));
    // the client closed its side after reading the answer: the connection is done
    this.once('end', () => this.destroy());
    // reads go on (the HTTP parser keeps passing the body to the request, which discards it)
    this.resume();
  };
}
