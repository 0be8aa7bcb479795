// The server's own headers (request id, rate limit, Connection: close while draining) are staged on the
// response and must reach the wire however the answer is written: writeHead with an object, a list or a
// reason phrase, setHeader first, or no writeHead at all. An answer's own header of the same name wins,
// and goes out once.
import assert from 'node:assert/strict';
import http, { type IncomingMessage } from 'node:http';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import { stagedHeadersResponse, type StackResponse } from '../../src/http/staged-headers.js';

/** The raw head of the answer to one request (names as sent, in order). */
function rawHead(port: number, path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(`GET ${path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`));
    let text = '';
    socket.on('data', (d) => { text += d; });
    socket.on('end', () => resolve(text.split('\r\n\r\n')[0]));
    socket.on('error', reject);
  });
}

const lines = (head: string, name: string) => head.split('\r\n').filter((l) => l.toLowerCase().startsWith(`${name.toLowerCase()}:`));

describe('staged headers', () => {
  let server: http.Server;
  let port: number;
  const answers: Record<string, (res: StackResponse) => void> = {
    '/object': (res) => res.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Length': 2 }).end('ok'),
    '/list': (res) => res.writeHead(200, ['Content-Type', 'text/plain', 'Set-Cookie', 'a=1', 'Set-Cookie', 'b=2']).end('ok'),
    '/reason': (res) => res.writeHead(200, 'Fine', { 'Content-Type': 'text/plain' }).end('ok'),
    '/set-first': (res) => { res.setHeader('Content-Type', 'text/plain'); res.writeHead(201); res.end('ok'); },
    '/implicit': (res) => { res.statusCode = 202; res.end('ok'); },
    '/own-wins': (res) => res.writeHead(200, { 'X-Request-Id': 'answer', Connection: 'close' }).end('ok'),
    '/own-wins-set': (res) => { res.setHeader('X-Request-Id', 'answer'); res.end('ok'); },
    '/restaged': (res) => { res.stage('X-Request-Id', 'second'); res.writeHead(304).end(); },
  };

  before(async () => {
    server = http.createServer({ ServerResponse: stagedHeadersResponse() as unknown as typeof http.ServerResponse }, (req: IncomingMessage, response) => {
      const res = response as StackResponse;
      res.stage('X-Request-Id', 'staged');
      res.stage('Connection', 'close');
      assert.equal(res.hasStaged('X-Request-Id'), true);
      assert.equal(res.hasStaged('X-Other'), false);
      answers[req.url!](res);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    port = (server.address() as net.AddressInfo).port;
  });
  after(() => server.close());

  for (const path of ['/object', '/list', '/reason', '/set-first', '/implicit']) {
    test(`${path}: the staged headers and the answer's own, each once`, async () => {
      const head = await rawHead(port, path);
      assert.deepEqual(lines(head, 'X-Request-Id'), ['X-Request-Id: staged'], head);
      assert.equal(lines(head, 'Connection').length, 1, head);
      assert.match(lines(head, 'Connection')[0], /close/i);
      assert.equal(lines(head, 'Content-Type').length, path === '/implicit' ? 0 : 1, head);
    });
  }

  test('writeHead with a list keeps repeated headers; a reason phrase is kept', async () => {
    assert.deepEqual(lines(await rawHead(port, '/list'), 'Set-Cookie'), ['Set-Cookie: a=1', 'Set-Cookie: b=2']);
    assert.match(await rawHead(port, '/reason'), /^HTTP\/1\.1 200 Fine/);
  });

  test("an answer's own header of a staged name wins and goes out once", async () => {
    for (const path of ['/own-wins', '/own-wins-set']) {
      const head = await rawHead(port, path);
      assert.deepEqual(lines(head, 'X-Request-Id'), ['X-Request-Id: answer'], head);
      assert.equal(lines(head, 'Connection').length, 1, head);
    }
  });

  test('staging a name again replaces its value', async () => {
    const head = await rawHead(port, '/restaged');
    assert.match(head, /^HTTP\/1\.1 304/);
    assert.deepEqual(lines(head, 'X-Request-Id'), ['X-Request-Id: second']);
  });
});
