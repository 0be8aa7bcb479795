// Large generated files are made, hashed, sent and archived as chunks (src/text-chunks.ts), never as one
// flat copy (issue 36). That must never change a byte: a stack of about 200 services, sent over HTTP as
// JSON and as tar.gz, has every file exactly as a render reads whole, every sha256 in its record matches
// its file, and the image pins are those of the whole .env.example. The chunking itself: no surrogate pair
// is ever cut, and a template rendered in chunks gives what its whole render gives.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { readConfig } from '../../src/config.js';
import { Generator, type GenerateRequest } from '../../src/pipeline/generate.js';
import { fileChunks } from '../../src/bundle/file-chunks.js';
import { imagePins } from '../../src/bundle/provenance.js';
import { compileTemplate, renderTemplate, renderTemplateChunks } from '../../src/templating.js';
import { CHUNK_CHARS, chunkLines, settledChunks, TextChunks } from '../../src/text-chunks.js';
// the bench's own 200-service request (every skill pack, services in id order while they resolve)
import { largeRequest, newSelections } from '../../bench/requests.js';
import { readTarGz } from '../support/bundle.js';
import { shippedCatalogue, startServer, type TestServer } from '../support/server.js';

const sha256 = (text: string) => crypto.createHash('sha256').update(text).digest('hex');

describe('large files as chunks', () => {
  const catalogue = shippedCatalogue();
  const request = { ...largeRequest(catalogue), name: 'large', domain: 'big.example.com' };
  let server: TestServer;
  before(async () => {
    server = await startServer();
  });
  after(async () => {
    await server.close();
  });

  test('a 200-service stack over HTTP: JSON and tar hold every file whole, and the record hashes each', async () => {
    const rendered = new Generator(catalogue, readConfig({}).templatesDir, 100).generate(request);
    // not vacuous: the large files were made in chunks
    for (const file of ['docker-compose.yml', '.env.example', 'README.md']) assert.ok(fileChunks(rendered, file).length > 1, `${file} in chunks`);
    const post = (body: object) => server.post('/api/v1/generate', body);
    const res = await post(request);
    assert.equal(res.status, 200);
    const text = await res.text();
    // the answer, written chunk by chunk, is exactly the envelope around JSON.stringify of the bundle
    assert.equal(text, `{"ok":true,"data":${JSON.stringify(rendered)}}`);
    const { data } = JSON.parse(text) as { data: { files: Record<string, string> } };
    const record = JSON.parse(data.files['stackwright.json']) as { files: Record<string, string>; images: Record<string, string> };
    for (const [file, content] of Object.entries(data.files)) {
      if (file !== 'stackwright.json') assert.equal(record.files[file], sha256(content), file);
    }
    assert.deepEqual(Object.keys(record.files).sort(), Object.keys(data.files).filter((f) => f !== 'stackwright.json').sort());
    // the same pins in the same order: the record's are taken from .env.example's groups as they are written
    assert.equal(JSON.stringify(record.images), JSON.stringify(imagePins(data.files['.env.example'])));
    assert.ok(Object.keys(record.images).length > 100);
    const tar = await post({ ...request, format: 'tar' });
    assert.equal(tar.status, 200);
    const entries = (await readTarGz(Buffer.from(await tar.arrayBuffer()))).filter((e) => e.type === 'file');
    assert.equal(entries.length, Object.keys(data.files).length);
    for (const e of entries) assert.equal(e.content, data.files[e.name.slice('large/'.length)], e.name);
  });

  test("the record's image pins are .env.example's, in its order, from kept groups and new ones alike", () => {
    const generator = new Generator(catalogue, readConfig({}).templatesDir, 100);
    const [fewer, other] = newSelections(catalogue, request, 2);
    // new selections (groups kept from the stacks before), a domain that binds late and one that does not, a GPU
    const requests: GenerateRequest[] = [
      request, { ...fewer, name: 'fewer', domain: 'other.example.net' }, { ...other, name: 'local', domain: 'localhost' },
      { name: 'gpu', preset: 'full-stack', gpu: true, proxy: 'nginx', domain: 'gpu.example.org' }, { name: 'plain', preset: 'full-stack' },
    ];
    for (const r of [...requests, ...requests]) {
      const files = generator.generate(r).files;
      const record = JSON.parse(files['stackwright.json']) as { images: Record<string, string> };
      assert.equal(JSON.stringify(record.images), JSON.stringify(imagePins(files['.env.example'])), r.name);
    }
  });

  test('a rendered bundle is kept from its second request; the second binds into its shape, byte-identical', () => {
    const generator = new Generator(catalogue, readConfig({}).templatesDir, 100);
    const r: GenerateRequest = { name: 'twice', preset: 'full-stack', proxy: 'caddy', domain: 'example.org' };
    const [first, second, third] = [generator.generate(r), generator.generate(r), generator.generate(r)];
    assert.notEqual(first, second);
    assert.equal(second, third);
    assert.deepEqual(second, first);
  });

  test('a template rendered in chunks gives its whole render, cut near the size, never inside a surrogate pair', () => {
    const fn = compileTemplate('head <%= it.name %>\n<% for (const x of it.xs) { %>- <%= x %> é — \u{1F600}\n<% } %><% /* a comment */ %>end\n');
    const data = { name: 'n', xs: Array.from({ length: 6000 }, (_, i) => `item ${i}`) };
    const whole = renderTemplate(fn, data);
    const chunks = renderTemplateChunks(fn, data);
    assert.ok(chunks.length > 3);
    assert.equal(chunks.join(''), whole);
    for (const chunk of chunks.slice(0, -1)) {
      assert.ok(chunk.length >= CHUNK_CHARS && chunk.length < CHUNK_CHARS + 100, `${chunk.length}`);
      const last = chunk.charCodeAt(chunk.length - 1);
      assert.ok(last < 0xd800 || last > 0xdbff);
    }
    // rendered the usual way afterwards, the same compiled template cuts nothing
    assert.equal(renderTemplate(fn, data), whole);
  });

  test('chunks: a pair cut by a chunk boundary is joined, hashes match the whole, lines come whole', () => {
    const parts = settledChunks(['a\ud83d', '\ude00b', '', 'c\ud83d', '\ude00']);
    assert.deepEqual(parts, ['a\u{1F600}b', 'c\u{1F600}']);
    assert.deepEqual(settledChunks(['', '']), ['']);
    const text = new TextChunks();
    const pieces = Array.from({ length: 5000 }, (_, i) => `KEY_${i}_IMAGE=img/${i}:1 \u{1F600}\n`.repeat(1 + (i % 3)));
    for (const p of pieces) text.add(p);
    const chunks = text.finish();
    assert.ok(chunks.length > 2);
    assert.equal(chunks.join(''), pieces.join(''));
    const hash = crypto.createHash('sha256');
    for (const c of chunks) hash.update(c);
    assert.equal(hash.digest('hex'), sha256(pieces.join('')));
    // lines cut between chunks come whole, in order
    const cut = ['A_IMAGE=x\nB_IM', 'AGE=y\nC_', 'IMAGE=z'];
    assert.deepEqual([...chunkLines(cut)].join('').split('\n'), ['A_IMAGE=x', 'B_IMAGE=y', 'C_IMAGE=z']);
    assert.deepEqual(imagePins(cut), { A_IMAGE: 'x', B_IMAGE: 'y', C_IMAGE: 'z' });
  });

  test('image pins are the lines a multiline pattern reads as pins, whatever the line breaks', () => {
    // what imagePins searched with before it looked at lines holding _IMAGE= only: the reference
    const byPattern = (text: string) => Object.fromEntries([...text.matchAll(/^([A-Z][A-Z0-9_]*_IMAGE)=([^\s#'"]+)[ \t]*$/gm)].map((m) => [m[1], m[2]]));
    const text = [
      '# A_IMAGE=commented', 'A_IMAGE=a:1', 'B_IMAGE=b:1 \t', 'C_IMAGE="quoted"', 'D_IMAGE=d:1 # note', 'lower_IMAGE=x',
      'E_IMAGE_IMAGE=e:1', 'F_IMAGE=f:1\rG_IMAGE=g:1', 'H_IMAGE=h:1\u2028I_IMAGE=i:1\u2029J_IMAGE=j:1', 'A_IMAGE=a:2',
      'K_IMAGE=', 'X=1 L_IMAGE=l:1', 'M_IMAGE=m:1\r', '_IMAGE=n', 'O_IMAGE=o:1 p', 'P_IMAGE=p:1',
    ].join('\n');
    const expected = byPattern(text);
    assert.deepEqual(expected, { A_IMAGE: 'a:2', B_IMAGE: 'b:1', E_IMAGE_IMAGE: 'e:1', F_IMAGE: 'f:1', G_IMAGE: 'g:1', H_IMAGE: 'h:1', I_IMAGE: 'i:1', J_IMAGE: 'j:1', M_IMAGE: 'm:1', P_IMAGE: 'p:1' });
    assert.deepEqual(imagePins(text), expected);
    // cut anywhere into chunks, the same pins
    for (let at = 1; at < text.length; at += 7) assert.deepEqual(imagePins([text.slice(0, at), text.slice(at)]), expected, `cut at ${at}`);
  });
});
