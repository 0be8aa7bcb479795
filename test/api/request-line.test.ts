// The request log line is written without pino's general serialiser (src/observability/request-line.ts):
// it must be the very bytes pino writes for the same record, with the service's logger as configured, a
// child logger's bindings, both forms of the key field, numbers pino writes as null, and the terminal form.
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { describe, test } from 'node:test';
import pino from 'pino';
import { createLogger } from '../../src/observability/log.js';
import { requestLineWriter, type RequestLine } from '../../src/observability/request-line.js';

/** A destination that keeps what is written, and claims to be a terminal when asked to. */
function capture(isTTY = false): Writable & { text: () => string; isTTY: boolean } {
  const chunks: string[] = [];
  const out = new Writable({ write(chunk, _enc, done) { chunks.push(String(chunk)); done(); } }) as Writable & { text: () => string; isTTY: boolean };
  out.text = () => chunks.join('');
  out.isTTY = isTTY;
  return out;
}

const LINES: [RequestLine, string][] = [
  [{ requestId: '8605ac52-7f50-4c95-880a-50f129cc2808', method: 'GET', route: '/api/v1/services', status: 200, durationMs: 1.2, client: '127.0.0.1', key: undefined }, 'GET /api/v1/services 200'],
  [{ requestId: 'proxy:id/with+odd=chars@x', method: 'POST', route: '/api/v1/generate', status: 429, durationMs: 0, client: '::1', key: '0f1e2d3c' }, 'POST /api/v1/generate 429'],
  [{ requestId: 'a"quote\\and\u0001control', method: 'PATCH', route: 'unmatched', status: 499, durationMs: Number.NaN, client: '203.0.113.9', key: 'ff' }, 'a "message" with\nnewline and ünïcode'],
];

/** The time field differs between two calls a millisecond apart: it is compared apart. */
const withoutTime = (text: string) => text.replace(/"time":"[^"]*"/g, '"time":"T"');

describe('the request log line', () => {
  test('is byte for byte what logger.info writes for the same record, for the service\'s logger and a child', () => {
    const direct = capture();
    const viaPino = capture();
    for (const make of [(out: Writable) => createLogger({ level: 'info', format: 'json' }, out), (out: Writable) => createLogger({ level: 'info', format: 'json' }, out).child({ component: 'http' })]) {
      const a = make(direct);
      const b = make(viaPino);
      const write = requestLineWriter(a);
      for (const [line, message] of LINES) {
        write(line, message);
        b.info(line, message);
      }
    }
    assert.ok(direct.text().length > 0);
    assert.equal(withoutTime(direct.text()), withoutTime(viaPino.text()));
    for (const line of direct.text().trim().split('\n')) assert.match(line, /^\{"level":"info","time":"\d{4}-\d\d-\d\dT[\d:.]+Z","pid":\d+,"hostname":/);
  });

  test('is left out below the logger\'s level, and goes through the terminal formatter as any line', () => {
    const quiet = capture();
    requestLineWriter(createLogger({ level: 'warn', format: 'json' }, quiet))(LINES[0][0], LINES[0][1]);
    assert.equal(quiet.text(), '');
    const direct = capture(true);
    const viaPino = capture(true);
    requestLineWriter(createLogger({ level: 'info', format: 'pretty' }, direct))(LINES[1][0], LINES[1][1]);
    createLogger({ level: 'info', format: 'pretty' }, viaPino).info(LINES[1][0], LINES[1][1]);
    assert.equal(direct.text().replace(/^\S+/, ''), viaPino.text().replace(/^\S+/, ''));
    assert.match(direct.text(), /POST \/api\/v1\/generate 429/);
  });

  test('a logger set up in a way it does not reproduce (a mixin) is written through logger.info', () => {
    const direct = capture();
    const viaPino = capture();
    const options = { mixin: () => ({ extra: 1 }) };
    requestLineWriter(pino(options, direct))(LINES[0][0], LINES[0][1]);
    pino(options, viaPino).info(LINES[0][0], LINES[0][1]);
    assert.match(direct.text(), /"extra":1/);
    assert.equal(direct.text().replace(/"time":\d+/, ''), viaPino.text().replace(/"time":\d+/, ''));
  });
});
