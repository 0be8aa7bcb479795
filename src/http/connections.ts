// Connections before there is a request: caps in total and per client address (so silent sockets from
// one client cannot take every descriptor), and the JSON envelope for what Node's HTTP parser rejects.
import type http from 'node:http';
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

export function guardConnections(server: http.Server, config: Pick<Config, 'maxConnections' | 'maxConnectionsPerAddress'>): void {
  server.keepAliveTimeout = 5_000;
  server.headersTimeout = 10_000;
  server.requestTimeout = 30_000;
  server.maxConnections = config.maxConnections;

  const perAddress = new Map<string, number>();
  server.on('connection', (socket) => {
    const address = socket.remoteAddress ?? '';
    const open = (perAddress.get(address) ?? 0) + 1;
    if (open > config.maxConnectionsPerAddress) {
      socket.destroy();
      return;
    }
    perAddress.set(address, open);
    socket.once('close', () => {
      const left = (perAddress.get(address) ?? 1) - 1;
      if (left > 0) perAddress.set(address, left);
      else perAddress.delete(address);
    });
  });

  // requests the parser rejects get the envelope too, on a socket that is still there
  server.on('clientError', (err: NodeJS.ErrnoException, socket) => {
    if (err.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    socket.end(rawErrorResponse(parserError(err)));
  });
}
