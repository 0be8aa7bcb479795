// The web page in a real browser: Debian's chromium driven by playwright-core against the real server.
// Load, enter the key, choose a preset, see a warning next to its field, an error next to another,
// generate, download the tar and unpack it; plus the page's headers (CSP, caching) and its layout at 360 px.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { chromium, type Browser, type Page } from 'playwright-core';
import { REPO_ROOT } from '../../src/config.js';
import { CONTENT_SECURITY_POLICY } from '../../src/web/page.js';
import { KEY, startServer, type TestServer } from '../support/server.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
/**
 * The screenshots for the docs are written when missing or when STACKWRIGHT_SCREENSHOTS=1 (so a test run
 * does not rewrite committed files); otherwise they go to the temporary folder, still taken.
 */
function screenshotPath(name: string): string {
  const file = path.join(REPO_ROOT, 'docs', name);
  return process.env.STACKWRIGHT_SCREENSHOTS === '1' || !fs.existsSync(file) ? file : path.join(os.tmpdir(), name);
}

async function launch(): Promise<Browser> {
  if (!fs.existsSync(CHROMIUM)) {
    throw new Error(`no Chromium at ${CHROMIUM}: install it with \`sudo apt-get update && sudo apt-get install -y chromium\` `
      + '(or `npm run setup:test-tools`), or set CHROMIUM_PATH to a Chromium binary; the page tests need a real browser');
  }
  // root (as in CI containers) cannot use Chromium's sandbox
  const args = process.getuid?.() === 0 ? ['--no-sandbox'] : [];
  return chromium.launch({ executablePath: CHROMIUM, args });
}

let server: TestServer;
let browser: Browser | undefined;
let launchError: Error | undefined;
before(async () => {
  server = await startServer();
  // a missing browser fails every browser test with the way to install it (never a skip)
  browser = await launch().catch((e: Error) => { launchError = e; return undefined; });
});
after(async () => {
  await browser?.close();
  await server?.close();
});

/** A new page on the server, with every console error and page error collected. */
async function open(url: string, viewport = { width: 1280, height: 900 }): Promise<{ page: Page; problems: string[] }> {
  if (!browser) throw launchError ?? new Error('Chromium did not start');
  const context = await browser.newContext({ viewport, acceptDownloads: true });
  const page = await context.newPage();
  const problems: string[] = [];
  // answers the page expects (a 400 for an invalid selection, 401, 429) are logged by Chromium as failed
  // loads; anything else (a CSP violation, a script error) is a problem
  page.on('console', (m) => { if (m.type() === 'error' && !/^Failed to load resource: the server responded with a status of 4\d\d/.test(m.text())) problems.push(m.text()); });
  page.on('pageerror', (e) => problems.push(e.message));
  await page.goto(url);
  await page.waitForSelector('#stack-form[data-ready="true"]');
  return { page, problems };
}

describe('the page and its assets over HTTP', () => {
  test('/ is public HTML with the strict CSP, no-cache, and no inline script or style', async () => {
    const res = await fetch(`${server.url}/`);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'text/html; charset=utf-8');
    assert.equal(res.headers.get('content-security-policy'), CONTENT_SECURITY_POLICY);
    assert.equal(CONTENT_SECURITY_POLICY, "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; form-action 'none'; frame-ancestors 'none'; base-uri 'none'");
    assert.equal(res.headers.get('cache-control'), 'no-cache');
    assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
    const html = await res.text();
    assert.doesNotMatch(html, /<script(?![^>]*\bsrc=)[^>]*>/, 'every script has a src');
    assert.doesNotMatch(html, /<style|\sstyle=|\son[a-z]+=/i, 'no inline style or handler');
    // a revalidation with the ETag is a 304
    const again = await fetch(`${server.url}/`, { headers: { 'If-None-Match': res.headers.get('etag')! } });
    assert.equal(again.status, 304);
    const post = await fetch(`${server.url}/`, { method: 'POST' });
    assert.equal(post.status, 405);
    assert.equal(post.headers.get('allow'), 'GET, HEAD');
  });

  test('assets have content-hashed names and are cached for a year, immutable', async () => {
    const html = await (await fetch(`${server.url}/`)).text();
    const urls = [...html.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((m) => m[1]);
    assert.ok(urls.some((u) => /^\/assets\/app\.[A-Za-z0-9]{10}\.js$/.test(u)), urls.join());
    assert.ok(urls.some((u) => /^\/assets\/style\.[A-Za-z0-9]{10}\.css$/.test(u)), urls.join());
    const seen: string[] = [];
    const check = async (url: string) => {
      if (seen.includes(url)) return;
      seen.push(url);
      const res = await fetch(server.url + url);
      assert.equal(res.status, 200, url);
      assert.equal(res.headers.get('cache-control'), 'public, max-age=31536000, immutable');
      const body = Buffer.from(await res.arrayBuffer());
      const hash = crypto.createHash('sha256').update(body).digest('base64url').replace(/[-_]/g, '').slice(0, 10);
      assert.ok(url.includes(`.${hash}.`), `${url} is named by its content's hash`);
      // the modules an asset imports are hashed names too
      for (const m of body.toString('utf8').matchAll(/from '\.\/([^']+)'/g)) await check(`/assets/${m[1]}`);
    };
    for (const url of urls) await check(url);
    assert.ok(seen.some((u) => /\/assets\/api\.[A-Za-z0-9]{10}\.js$/.test(u)), 'app.js imports api.js by its hashed name');
    assert.equal((await fetch(`${server.url}/assets/app.js`)).status, 404);
  });
});

describe('the page in Chromium', () => {
  test('key, preset, a live warning and error next to their fields, generate, download and unpack the tar', async () => {
    const { page, problems } = await open(`${server.url}/`);
    // without a key, the catalogue is there and validation asks for the key
    assert.match(await page.textContent('#validation') ?? '', /Enter the API key/);
    assert.ok(await page.locator('input[name="services"]').count() > 30);

    // search narrows the services (grouped by category)
    await page.fill('#service-search', 'vector');
    await page.waitForFunction(() => /services shown/.test(document.getElementById('search-count')!.textContent!));
    assert.ok(await page.isVisible('.choice-row[data-id="qdrant"]'));
    assert.ok(await page.isHidden('.choice-row[data-id="redis"]'));
    await page.fill('#service-search', '');

    await page.fill('#api-key', KEY);
    await page.click('#key-form button[type="submit"]');
    await page.waitForSelector('#validation .status.ok');
    assert.equal(await page.evaluate(() => sessionStorage.getItem('stackwright.apiKey')), KEY);

    await page.selectOption('#preset', 'web-agent');
    assert.ok(await page.isChecked('#services-searxng'));
    assert.ok(await page.isDisabled('#services-searxng'));
    await page.check('#gpu');
    // the engine's GPU_UNUSED warning appears next to the GPU field
    const gpuWarning = page.locator('[data-msg-for="gpu"] .warning');
    await gpuWarning.waitFor();
    assert.match(await gpuWarning.textContent() ?? '', /GPU_UNUSED/);
    assert.match(await page.textContent('#validation') ?? '', /Valid, with 1 warning/);
    assert.match(await page.textContent('#validation') ?? '', /Memory estimate/);
    assert.match(await page.textContent('#validation') ?? '', /searxng/);

    // an error is shown next to the name, and the field is marked invalid
    await page.fill('#name', 'Bad Name');
    const nameError = page.locator('[data-msg-for="name"] .error');
    await nameError.waitFor();
    assert.match(await nameError.textContent() ?? '', /name must be/);
    assert.equal(await page.getAttribute('#name', 'aria-invalid'), 'true');
    await page.fill('#name', 'web-stack');
    await page.waitForSelector('#validation .status.warn');
    assert.equal(await page.getAttribute('#name', 'aria-invalid'), null);

    await page.selectOption('#proxy', 'caddy');
    await page.click('#generate');
    await page.waitForSelector('#bundle:not([hidden])');
    const files = await page.locator('#file-list li code').allTextContents();
    assert.ok(files.includes('docker-compose.yml'), files.join());
    assert.match(await page.textContent('#readme') ?? '', /web-stack/);
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.screenshot({ path: screenshotPath('screenshot-web.png') });

    const [download] = await Promise.all([page.waitForEvent('download'), page.click('#download')]);
    assert.equal(download.suggestedFilename(), 'web-stack.tar.gz');
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stackwright-web-'));
    try {
      const file = path.join(dir, 'web-stack.tar.gz');
      await download.saveAs(file);
      execFileSync('tar', ['-xzf', file, '-C', dir]);
      assert.ok(fs.existsSync(path.join(dir, 'web-stack', 'docker-compose.yml')), 'the tar holds web-stack/docker-compose.yml');
      // the same bytes as the API gives for the same request
      const api = await server.post('/api/v1/generate', { name: 'web-stack', preset: 'web-agent', proxy: 'caddy', gpu: true, format: 'tar' });
      assert.ok(Buffer.from(await api.arrayBuffer()).equals(fs.readFileSync(file)));
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
    assert.deepEqual(problems, [], 'no console errors and no CSP violations');
    await page.context().close();
  });

  test('a wrong key and a spent rate limit are explained, with the wait', async () => {
    const limited = await startServer({ STACK_RATE_LIMIT_WRITE: '1' });
    try {
      const { page } = await open(`${limited.url}/`);
      await page.fill('#api-key', 'not-the-key');
      await page.click('#key-form button[type="submit"]');
      await page.waitForSelector('#alert:not([hidden])');
      assert.match(await page.textContent('#alert') ?? '', /API key was refused/);
      await page.fill('#api-key', KEY);
      await page.click('#key-form button[type="submit"]');
      await page.waitForSelector('#validation .status.ok');
      await page.check('#gpu');
      await page.waitForFunction(() => /Too many requests: wait \d+ seconds/.test(document.getElementById('alert')!.textContent!));
      await page.context().close();
    } finally {
      await limited.close();
    }
  });

  test('usable at 360 px and by keyboard: no sideways scrolling, labelled controls, live results', async () => {
    const { page, problems } = await open(`${server.url}/`, { width: 360, height: 740 });
    assert.ok(await page.evaluate(() => document.documentElement.scrollWidth) <= 360, 'no horizontal overflow at 360 px');
    await page.screenshot({ path: screenshotPath('screenshot-web-360.png') });
    const unlabelled = await page.evaluate(() => [...document.querySelectorAll('input, select, button')]
      .filter((c) => !(c as HTMLInputElement).labels?.length && !c.getAttribute('aria-label') && !(c.textContent ?? '').trim())
      .map((c) => c.id || c.outerHTML));
    assert.deepEqual(unlabelled, []);
    assert.equal(await page.getAttribute('#validation', 'aria-live'), 'polite');
    assert.equal(await page.getAttribute('#alert', 'role'), 'alert');
    // focus order: the skip link, then the key field
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => document.activeElement?.className), 'skip');
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'api-key');
    // the whole flow by keyboard: key, then Enter
    await page.keyboard.type(KEY);
    await page.keyboard.press('Enter');
    await page.waitForSelector('#validation .status.ok');
    assert.deepEqual(problems, []);
    await page.context().close();
  });
});
