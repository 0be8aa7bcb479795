// Connections before there is a request: caps in total and per client address, and the JSON envelope for
// what Node's HTTP parser rejects. Behind a reverse proxy every client shares one address, so a cap must
// never cost a well-behaved client its request. At a cap:
//  1. room is made by closing the oldest connection that holds a place without using it: idle (silent
//     since it opened, or between keep-alive requests) for at least IDLE_BEFORE_EVICTION_MS, or sending
//     its body slower than STACK_MIN_BODY_RATE (answered 408 and closed gracefully);
//  2. else the connection is still taken, and its request is answered 503 with Retry-After and the
//     envelope, as nginx's limit_conn does (/livez and /readyz are answered as usual);
//  3. past OVER_CAP_ANSWERS such connections beyond the total cap, connections are coming in a flood
//     (most of them silent): the oldest idle one is closed whatever its age, and only when none is idle
//     is the newcomer reset.
import type http from 'node:http';
import type net from 'node:net';
import type { Config } from '../config.js';
import { ApiError } from '../errors.js';
import { bodyArrivingTooSlowly, refuseSlowBody } from './body.js';
import { rawErrorResponse } from './envelope.js';

/**
 * A connection may sit idle this long before it can be closed to make room: a client that has just
 * connected, or just had an answer, is usually sending its request at that very moment.
 */
export const IDLE_BEFORE_EVICTION_MS = 1_000;
/** Connections taken past the total cap, to answer 503 (or a probe); they fit in the descriptors fd-limit.ts keeps free. */
export const OVER_CAP_ANSWERS = 16;

/** What Node's HTTP parser rejected, as our error (the socket has no response object yet). */
function parserError(err: NodeJS.ErrnoException): ApiError {
  switch (err.code) {
    case 'HPE_HEADER_OVERFLOW':
      return new ApiError('HEADERS_TOO_LARGE', 'the request headers are too large');
    case 'ERR_HTTP_REQUEST_TIMEOUT':
    case 'ERR_HTTP_HEADERS_TIMEOUT':
      return new ApiError('REQUEST_TIMEOUT', 'the request did not arrive in time');
    default:
      return new ApiError('VALIDATION_ERROR', 'the request is not valid HTTP/1.1 (request line, header or body framing)', {
        details: { errors: [`the HTTP parser refused it (${err.code ?? 'no code'}): send a request line, headers and body framing as RFC 9112 describes`] },
      });
  }
}

interface Connection {
  socket: net.Socket;
  /** the address's group; none for a connection taken over the cap (its requests get 503) */
  group?: ConnectionGroup;
  /** requests under way (pipelined requests are announced before the first is answered) */
  underWay: number;
  /** the latest request under way, whose body may be arriving */
  request?: http.IncomingMessage;
  /** when the connection last had no request under way (its opening, or its last answer) */
  idleSince: number;
}

/** Open connections of one scope (all, or one address): those idle in the order they became so, and the busy ones. */
class ConnectionGroup {
  open = 0;
  /** insertion order is idle age: a connection goes to the end each time it becomes idle */
  readonly idle = new Set<Connection>();
  readonly busy = new Set<Connection>();

  constructor(readonly address = '') {}
}

/** What the caps did, counted for the metrics: connections closed to make room, new ones reset in a flood. */
export type ConnectionCapActions = Record<'closed_idle' | 'refused', number>;

export class ConnectionTable {
  readonly actions: ConnectionCapActions = { closed_idle: 0, refused: 0 };
  private readonly all = new ConnectionGroup();
  private readonly byAddress = new Map<string, ConnectionGroup>();
  private readonly members = new Map<net.Socket, Connection>();

  constructor(
    private readonly maxTotal: number,
    private readonly maxPerAddress: number,
    private readonly minBodyRate: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Takes a new connection in (see the top of this file); resets it only in a flood. */
  admit(socket: net.Socket): void {
    const address = socket.remoteAddress ?? '';
    const group = this.byAddress.get(address) ?? new ConnectionGroup(address);
    const fits = this.makeRoom(group, this.maxPerAddress) && this.makeRoom(this.all, this.maxTotal);
    // past the places for 503s too, this is a flood: the oldest idle connection goes whatever its age,
    // so a probe still gets in; with none idle at all, the newcomer is reset
    if (!fits && this.all.open >= this.maxTotal + OVER_CAP_ANSWERS && !this.closeOldestIdle(this.all, 0)) {
      this.actions.refused++;
      socket.destroy();
      return;
    }
    const connection: Connection = { socket, group: fits ? group : undefined, underWay: 0, idleSince: this.now() };
    if (fits) {
      this.byAddress.set(address, group);
      group.open++;
      group.idle.add(connection);
    }
    this.members.set(socket, connection);
    this.all.open++;
    this.all.idle.add(connection);
    socket.once('close', () => this.forget(connection));
  }

  /** Whether the connection was taken over a cap, so its requests are answered 503. */
  overCap(socket: net.Socket): boolean {
    const connection = this.members.get(socket);
    return connection !== undefined && connection.group === undefined;
  }

  /** A request started on the connection: it is not closed to make room unless its body crawls. */
  requestStarted(req: http.IncomingMessage): void {
    const connection = this.members.get(req.socket);
    if (!connection) return;
    connection.underWay++;
    connection.request = req;
    this.moveTo('busy', connection);
  }

  requestEnded(req: http.IncomingMessage): void {
    const connection = this.members.get(req.socket);
    if (!connection || --connection.underWay > 0) return;
    connection.underWay = 0;
    connection.request = undefined;
    connection.idleSince = this.now();
    this.moveTo('idle', connection);
  }

  /** Moves a connection between idle and busy in its address's group and in the whole table (no array: twice a request). */
  private moveTo(state: 'idle' | 'busy', connection: Connection): void {
    const from = state === 'idle' ? 'busy' : 'idle';
    if (connection.group) {
      connection.group[from].delete(connection);
      connection.group[state].add(connection);
    }
    this.all[from].delete(connection);
    this.all[state].add(connection);
  }

  /** Whether `group` has a place under `cap`, closing a connection that holds one without using it. */
  private makeRoom(group: ConnectionGroup, cap: number): boolean {
    if (group.open < cap) return true;
    if (this.closeOldestIdle(group, IDLE_BEFORE_EVICTION_MS)) return true;
    const now = this.now();
    for (const connection of group.busy) {
      if (connection.request && bodyArrivingTooSlowly(connection.request, this.minBodyRate, now)) {
        this.forget(connection);
        this.actions.closed_idle++;
        refuseSlowBody(connection.request, this.minBodyRate);
        return true;
      }
    }
    return false;
  }

  /** Closes the connection of `group` idle the longest, if it has been idle at least `minIdleMs`. */
  private closeOldestIdle(group: ConnectionGroup, minIdleMs: number): boolean {
    // the idle set is in idle-age order: when its first is too fresh to close, so are the others
    const oldest: Connection | undefined = group.idle.values().next().value;
    if (!oldest || this.now() - oldest.idleSince < minIdleMs) return false;
    // counted out at once (its close event comes later): the new connection takes its place
    this.forget(oldest);
    this.actions.closed_idle++;
    oldest.socket.destroy();
    return true;
  }

  private forget(connection: Connection): void {
    if (!this.members.delete(connection.socket)) return;
    this.all.open--;
    this.all.idle.delete(connection);
    this.all.busy.delete(connection);
    const group = connection.group;
    if (!group) return;
    group.open--;
    group.idle.delete(connection);
    group.busy.delete(connection);
    if (group.open === 0) this.byAddress.delete(group.address);
  }
}

/**
 * Sets the caps and timeouts on `server`; returns the table (its `actions` count what the caps did).
 * `limitHeaders` gives the X-RateLimit-* headers of a request the parser refuses (it never reaches the
 * limiter, and must be answered at once).
 */
export function guardConnections(server: http.Server, config: Pick<Config, 'maxConnections' | 'maxConnectionsPerAddress' | 'minBodyRate'>,
  limitHeaders: (peerAddress: string | undefined) => Record<string, string> = () => ({})): ConnectionTable {
  server.keepAliveTimeout = 5_000;
  server.headersTimeout = 10_000;
  server.requestTimeout = 30_000;

  const table = new ConnectionTable(config.maxConnections, config.maxConnectionsPerAddress, config.minBodyRate);
  server.on('connection', (socket: net.Socket) => table.admit(socket));

  // requests the parser rejects get the envelope too, on a socket that is still there
  server.on('clientError', (err: NodeJS.ErrnoException, socket) => {
    if (err.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    socket.end(rawErrorResponse(parserError(err), limitHeaders((socket as net.Socket).remoteAddress)));
  });
  return table;
}
