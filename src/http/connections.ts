// Connections before there is a request: caps in total and per client address, and the JSON envelope for
// what Node's HTTP parser rejects. At a cap the oldest connection with no request under way (silent since
// it opened, or idle between keep-alive requests) is closed to make room, so sockets that never send a
// byte cannot keep out a client that has something to ask; only when every connection is busy is the new
// one turned away.
import type http from 'node:http';
import type net from 'node:net';
import type { Config } from '../config.js';
import { ApiError } from '../errors.js';
import { rawErrorResponse } from './envelope.js';

/** What Node's HTTP parser rejected, as our error (the socket has no response object yet). */
function parserError(err: NodeJS.ErrnoException): ApiError {
  switch (err.code) {
    case 'HPE_HEADER_OVERFLOW':
      return new ApiError('HEADERS_TOO_LARGE', 'the request headers are too large');
    case 'ERR_HTTP_REQUEST_TIMEOUT':
    case 'ERR_HTTP_HEADERS_TIMEOUT':
      return new ApiError('REQUEST_TIMEOUT', 'the request did not arrive in time');
    default:
      return new ApiError('VALIDATION_ERROR', 'the request is not valid HTTP/1.1 (request line, header or body framing)');
  }
}

/** Open connections of one scope (all, or one address), with those not serving a request in age order. */
class ConnectionGroup {
  open = 0;
  /** insertion order is age: a connection goes to the end each time it becomes idle */
  readonly idle = new Set<net.Socket>();

  constructor(readonly address = '') {}

  oldestIdle(): net.Socket | undefined {
    return this.idle.values().next().value;
  }
}

/** What the caps did, counted for the metrics: idle connections closed to make room, new ones refused. */
export type ConnectionCapActions = Record<'closed_idle' | 'refused', number>;

class ConnectionTable {
  readonly actions: ConnectionCapActions = { closed_idle: 0, refused: 0 };
  private readonly all = new ConnectionGroup();
  private readonly byAddress = new Map<string, ConnectionGroup>();
  /** every open connection, with the group of its address */
  private readonly members = new Map<net.Socket, ConnectionGroup>();
  /** requests under way per connection (pipelined requests are announced before the first is answered) */
  private readonly requestsUnderWay = new Map<net.Socket, number>();

  constructor(private readonly maxTotal: number, private readonly maxPerAddress: number) {}

  /** Takes a new connection in, closing the oldest idle one at a cap; refuses it when every one is busy. */
  admit(socket: net.Socket): void {
    const address = socket.remoteAddress ?? '';
    const group = this.byAddress.get(address) ?? new ConnectionGroup(address);
    if (!this.makeRoom(group, this.maxPerAddress) || !this.makeRoom(this.all, this.maxTotal)) {
      this.actions.refused++;
      socket.destroy();
      return;
    }
    this.byAddress.set(address, group);
    this.members.set(socket, group);
    group.open++;
    this.all.open++;
    group.idle.add(socket);
    this.all.idle.add(socket);
    socket.once('close', () => this.forget(socket));
  }

  /** A request started on the connection: it is not closed to make room until the request is answered. */
  requestStarted(socket: net.Socket): void {
    const group = this.members.get(socket);
    if (!group) return;
    this.requestsUnderWay.set(socket, (this.requestsUnderWay.get(socket) ?? 0) + 1);
    group.idle.delete(socket);
    this.all.idle.delete(socket);
  }

  requestEnded(socket: net.Socket): void {
    const group = this.members.get(socket);
    if (!group) return;
    const left = (this.requestsUnderWay.get(socket) ?? 1) - 1;
    if (left > 0) {
      this.requestsUnderWay.set(socket, left);
      return;
    }
    this.requestsUnderWay.delete(socket);
    group.idle.add(socket);
    this.all.idle.add(socket);
  }

  private makeRoom(group: ConnectionGroup, cap: number): boolean {
    if (group.open < cap) return true;
    const victim = group.oldestIdle();
    if (!victim) return false;
    // counted out at once (its close event comes later): the new connection takes its place
    this.forget(victim);
    this.actions.closed_idle++;
    victim.destroy();
    return true;
  }

  private forget(socket: net.Socket): void {
    const group = this.members.get(socket);
    if (!group) return;
    this.members.delete(socket);
    this.requestsUnderWay.delete(socket);
    group.idle.delete(socket);
    this.all.idle.delete(socket);
    group.open--;
    this.all.open--;
    if (group.open === 0) this.byAddress.delete(group.address);
  }
}

/** Sets the caps and timeouts on `server`; returns the running count of what the caps did. */
export function guardConnections(server: http.Server, config: Pick<Config, 'maxConnections' | 'maxConnectionsPerAddress'>): Readonly<ConnectionCapActions> {
  server.keepAliveTimeout = 5_000;
  server.headersTimeout = 10_000;
  server.requestTimeout = 30_000;

  const table = new ConnectionTable(config.maxConnections, config.maxConnectionsPerAddress);
  server.on('connection', (socket: net.Socket) => table.admit(socket));
  server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
    table.requestStarted(req.socket);
    res.once('close', () => table.requestEnded(req.socket));
  });

  // requests the parser rejects get the envelope too, on a socket that is still there
  server.on('clientError', (err: NodeJS.ErrnoException, socket) => {
    if (err.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    socket.end(rawErrorResponse(parserError(err)));
  });
  return table.actions;
}
