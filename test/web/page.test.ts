// The web page: its headers over HTTP, then the page in real Chromium (playwright-core driving Debian's
// /usr/bin/chromium) at 1280×800 and at 360×780, against the real server. Every state a test visits is
// checked with axe-core for WCAG 2.2 AA (and for a printed `null`).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { REPO_ROOT } from '../../src/config.js';
import { CONTENT_SECURITY_POLICY } from '../../src/web/page.js';
import { accessibilityProblems, DESKTOP, inView, launch, open, PHONE, type OpenPage } from '../support/browser.js';
import { KEY, okData, startServer, type TestServer } from '../support/server.js';

/**
 * The screenshots for the docs are written when missing or when STACKWRIGHT_SCREENSHOTS=1 (so a test run
 * does not rewrite committed files); otherwise they go to the temporary folder, still taken.
 */
function screenshotPath(name: string): string {
  const file = path.join(REPO_ROOT, 'docs', name);
  return process.env.STACKWRIGHT_SCREENSHOTS === '1' || !fs.existsSync(file) ? file : path.join(os.tmpdir(), name);
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

function chromium(): Browser {
  if (!browser) throw launchError ?? new Error('Chromium did not start');
  return browser;
}

/** Enters the key in the page's key form. */
async function enterKey(page: Page, key = KEY): Promise<void> {
  await page.fill('#api-key', key);
  await page.click('#key-form button[type="submit"]');
}

/** Waits until the check's status line matches. */
async function statusMatches(page: Page, re: RegExp): Promise<string> {
  await page.waitForFunction((source) => new RegExp(source).test(document.querySelector('#validation .status')?.textContent ?? ''), re.source);
  return (await page.textContent('#validation .status'))!;
}

async function assertAccessible(page: Page, state: string): Promise<void> {
  assert.deepEqual(await accessibilityProblems(page), [], `axe (WCAG 2.2 AA) in the state: ${state}`);
}

/** The last state's axe check, no console error or CSP violation, and the page's context closed. */
async function finish({ page, problems }: OpenPage, state: string): Promise<void> {
  await assertAccessible(page, state);
  assert.deepEqual(problems, [], 'no console errors and no CSP violations');
  await page.context().close();
}

/** A server of its own with these settings for `run`, closed after it. */
async function withServer(env: Record<string, string>, run: (url: string) => Promise<void>): Promise<void> {
  // windows are aligned to the clock: a day-long one cannot end between two requests of a test (barring midnight UTC)
  const own = await startServer({ STACK_RATE_LIMIT_WINDOW_SECONDS: '86400', ...env });
  try {
    await run(own.url);
  } finally {
    await own.close();
  }
}

const generateCalls = (posts: string[]) => posts.filter((p) => p === '/api/v1/generate').length;

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
    // a selection in the query string is the same page
    assert.equal((await fetch(`${server.url}/?preset=web-agent&services=redis`)).status, 200);
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

for (const [size, viewport] of [['1280×800', DESKTOP], ['360×780', PHONE]] as const) {
  describe(`the page in Chromium at ${size}`, () => {
    test('the catalogue is collapsed, the check and Generate stay in view, search ranks, the selection lives in the address', async (t) => {
      const { page, problems } = await open(chromium(), `${server.url}/`, viewport);
      t.diagnostic(`page height at ${size}: ${await page.evaluate(() => document.documentElement.scrollHeight)} px`);
      assert.equal(await page.locator('details.group[open]').count(), 0, 'every category starts collapsed');
      assert.ok(await page.locator('#services-chooser details.group').count() > 20);
      assert.match(await page.textContent('#services-chooser details.group summary') ?? '', /^Databases \d+$/);
      assert.ok(await page.evaluate(() => document.documentElement.scrollWidth) <= viewport.width, 'no sideways scrolling');
      assert.match(await statusMatches(page, /API key/), /Enter the API key to check/);
      await assertAccessible(page, 'loaded, no key');

      const answer = page.waitForResponse((r) => r.url().endsWith('/api/v1/validate'));
      await enterKey(page);
      const { data } = await (await answer).json() as { data: { estimatedMemoryMB: number; memoryLimitMB?: number } };
      await statusMatches(page, /^Valid/);
      const memory = await page.textContent('#validation .memory') ?? '';
      assert.match(memory, new RegExp(`^Memory the stack needs \\(estimate\\)${data.estimatedMemoryMB.toLocaleString('en')} MB \\(about [\\d.]+ GB\\)`));
      // the worst case is shown exactly when the answer carries it
      assert.equal(/Worst case \(sum of the containers’ memory limits\)/.test(memory), typeof data.memoryLimitMB === 'number', memory);
      await assertAccessible(page, 'key entered, valid');
      // in view at the top, and while choosing in the middle of the catalogue
      for (const where of ['top', 'inside an open category']) {
        if (where !== 'top') {
          await page.click('#services-chooser details.group:nth-of-type(3) summary');
          await page.locator('#services-chooser details.group:nth-of-type(3) .choice-row').last().scrollIntoViewIfNeeded();
          assert.ok(await page.evaluate(() => window.scrollY) > 300, 'the page scrolled');
        }
        assert.ok(await inView(page, '#generate'), `Generate in view (${where})`);
        assert.ok(await inView(page, '#validation .status'), `the check in view (${where})`);
      }

      // search ranks: an exact or prefix match before a mention in a description
      await page.fill('#services-search', 'postgres');
      await page.waitForSelector('#services-matches:not([hidden])');
      const ids = await page.locator('#services-matches .choice-row').evaluateAll((rows) => rows.map((r) => (r as HTMLElement).dataset.id));
      assert.equal(ids[0], 'postgresql', ids.join());
      assert.ok(ids.includes('mysql') && ids.indexOf('postgresql') < ids.indexOf('mysql'), ids.join());
      assert.match(await page.textContent('#services-search-count') ?? '', /\d+ matches for “postgres”, best first/);
      await page.check('#services-postgresql');
      await page.waitForFunction(() => new URLSearchParams(location.search).get('services') === 'postgresql');
      await assertAccessible(page, 'search results');
      await page.emulateMedia({ colorScheme: 'dark' });
      await assertAccessible(page, 'search results, dark scheme');
      await page.emulateMedia({ colorScheme: 'light' });

      // a skill pack whose service is missing: one click adds it
      await page.fill('#skills-search', 'web research');
      await page.check('#skills-web-research');
      const fix = page.locator('#skills-msg button[data-add-service="searxng"]');
      await fix.waitFor();
      assert.equal(await fix.textContent(), 'Add SearXNG (searxng)');
      assert.match(await statusMatches(page, /^Not ready/), /1 problem to fix/);
      await assertAccessible(page, 'a skill pack without its service, with the fix offered');
      await fix.click();
      await statusMatches(page, /^Valid/);
      await page.waitForFunction(() => new URLSearchParams(location.search).get('services') === 'postgresql,searxng');
      assert.equal(new URL(page.url()).searchParams.get('skills'), 'web-research');

      // reload keeps it; the address opened elsewhere (no key) shows the same selection
      await page.reload();
      await page.waitForSelector('#stack-form[data-ready="true"]');
      assert.deepEqual(await page.locator('#services-chooser [data-remove]').evaluateAll((b) => b.map((x) => (x as HTMLElement).dataset.remove)), ['postgresql', 'searxng']);
      assert.ok(await page.isChecked('#skills-web-research'));
      await statusMatches(page, /^Valid/);
      const shared = await open(chromium(), page.url(), viewport);
      assert.ok(await shared.page.isChecked('#services-searxng'));
      assert.ok(await shared.page.isChecked('#skills-web-research'));
      await shared.page.context().close();
      // a chip's button removes its service
      await page.click('#services-chooser button[data-remove="postgresql"]');
      await page.waitForFunction(() => new URLSearchParams(location.search).get('services') === 'searxng');
      assert.equal(await page.isChecked('#services-postgresql'), false);
      assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('data-remove')), 'searxng', 'the focus moves to the next chip');
      // a stale link opens with what is still known, and says what it left out
      const stale = await open(chromium(), `${server.url}/?services=redis,gone-service&proxy=apache&deploymentType=nomad`, viewport);
      assert.match(await stale.page.textContent('#form-status') ?? '', /The link named what this page does not offer, left out: apache, nomad, gone-service\.$/);
      assert.ok(await stale.page.isChecked('#services-redis'));
      assert.equal(await stale.page.inputValue('#proxy'), 'none');
      await stale.page.context().close();
      assert.deepEqual(problems, [], 'no console errors and no CSP violations');
      await page.context().close();
    });

    test('Generate once, every file viewable, Download without a second generation; a failed Generate drops the old stack', async () => {
      await withServer({ STACK_RATE_LIMIT_GENERATE: '1' }, async (url) => {
        const opened = await open(chromium(), `${url}/?name=web-stack&preset=web-agent&proxy=caddy`, viewport);
        const { page, posts } = opened;
        await enterKey(page);
        await statusMatches(page, /^Valid/);
        if (viewport === PHONE) await page.screenshot({ path: screenshotPath('screenshot-web-360.png') });
        await page.click('#generate');
        await page.waitForSelector('#bundle:not([hidden])');
        assert.equal(generateCalls(posts), 1);
        assert.match(await page.textContent('#generate-msg') ?? '', /^Generated web-stack \(\d+ files\)/);

        // every file: listed, and shown exactly as the API's JSON bundle has it
        const api = await okData<{ files: Record<string, string> }>(await server.post('/api/v1/generate', { name: 'web-stack', preset: 'web-agent', proxy: 'caddy' }));
        const listed = await page.locator('#file-list button').evaluateAll((b) => b.map((x) => (x as HTMLElement).dataset.path!));
        assert.deepEqual([...listed].sort(), Object.keys(api.files).sort());
        assert.equal(await page.textContent('#viewer-title'), 'README.md');
        for (const file of listed) {
          await page.click(`#file-list button[data-path="${file}"]`);
          assert.equal(await page.textContent('#viewer'), api.files[file], file);
          assert.equal(await page.getAttribute(`#file-list button[data-path="${file}"]`, 'aria-pressed'), 'true');
        }
        await assertAccessible(page, 'a generated stack, a file shown');
        if (viewport === DESKTOP) {
          await page.click('#file-list button[data-path="docker-compose.yml"]');
          await page.evaluate(() => window.scrollTo(0, 0));
          await page.screenshot({ path: screenshotPath('screenshot-web.png') });
        }

        // Download saves the archive Generate fetched: no request at all, the same bytes as the API's tar
        const [download] = await Promise.all([page.waitForEvent('download'), page.click('#download')]);
        assert.equal(download.suggestedFilename(), 'web-stack.tar.gz');
        assert.equal(generateCalls(posts), 1, 'Download generated nothing');
        const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stackwright-web-'));
        try {
          const file = path.join(dir, 'web-stack.tar.gz');
          await download.saveAs(file);
          execFileSync('tar', ['-xzf', file, '-C', dir]);
          assert.equal(fs.readFileSync(path.join(dir, 'web-stack', 'docker-compose.yml'), 'utf8'), api.files['docker-compose.yml']);
          const tar = await server.post('/api/v1/generate', { name: 'web-stack', preset: 'web-agent', proxy: 'caddy', format: 'tar' });
          assert.ok(Buffer.from(await tar.arrayBuffer()).equals(fs.readFileSync(file)));
        } finally {
          fs.rmSync(dir, { recursive: true, force: true });
        }

        // the limit (1) is spent: the 429 is beside Generate with when to retry, and the old stack is gone
        await page.click('#generate');
        const refusal = page.locator('#generate-msg .error');
        await refusal.waitFor();
        assert.match(await refusal.textContent() ?? '', /^Not generated\. Too many requests: try again in \d+ s \(at \d\d:\d\d:\d\d\)/);
        assert.equal(generateCalls(posts), 2);
        assert.ok(await page.isHidden('#bundle'), 'the earlier stack is not left on screen');
        assert.ok(await page.isDisabled('#download'));
        assert.ok(await inView(page, '#generate-msg'), 'the refusal is in view, beside Generate');
        await finish(opened, 'Generate refused with 429');
      });
    });

    test('a conflict says Generate will refuse it, and why; a refused key is forgotten with the check; each failure beside its action', async () => {
      const { page, problems, posts } = await open(chromium(), `${server.url}/?services=redis,valkey`, viewport);
      await enterKey(page);
      const status = await statusMatches(page, /^Generate will refuse this/);
      assert.match(status, /^Generate will refuse this, because services "redis" and "valkey" overlap in purpose/);
      assert.match(await page.textContent('[data-msg-for="services"]') ?? '', /Generate will refuse this, because .*\(CONFLICT\)/);
      await assertAccessible(page, 'a conflict');
      await page.click('#generate');
      await page.waitForFunction(() => /^Not generated: Generate refused this selection, because the selected services conflict: redis and valkey/.test(document.getElementById('generate-msg')!.textContent!));
      assert.ok(await page.isHidden('#bundle'));
      assert.equal(generateCalls(posts), 1);
      await assertAccessible(page, 'Generate refused with 409');

      // a wrong key: refused, forgotten, and the check no longer claims anything
      await page.click('#forget-key');
      await enterKey(page, 'not-the-key');
      await statusMatches(page, /^The API key was refused and is forgotten/);
      assert.equal(await page.evaluate(() => sessionStorage.getItem('stackwright.apiKey')), null);
      assert.match(await page.textContent('#key-status') ?? '', /refused .* enter the key of this server again/);
      assert.equal(await page.locator('#validation .memory').count(), 0, 'no result of the earlier key is left');
      await assertAccessible(page, 'a refused key');
      // Generate without a key says so beside it, without a call
      await page.click('#generate');
      await page.waitForFunction(() => /Generating needs the API key/.test(document.getElementById('generate-msg')!.textContent!));
      assert.equal(generateCalls(posts), 1);
      // a key refused at Generate
      await page.evaluate(() => sessionStorage.setItem('stackwright.apiKey', 'wrong-again'));
      await page.click('#generate');
      await page.waitForFunction(() => /^Not generated\. The API key was refused/.test(document.getElementById('generate-msg')!.textContent!));
      assert.equal(generateCalls(posts), 2);
      assert.equal(await page.evaluate(() => sessionStorage.getItem('stackwright.apiKey')), null);
      assert.equal(await page.evaluate(() => document.activeElement?.id), 'api-key', 'the focus is on the key to enter');
      assert.deepEqual(problems, []);
      await page.context().close();
    });

    test('presets: arrowing through the list applies nothing; applying over an own choice can be undone; customise', async () => {
      const { page, problems } = await open(chromium(), `${server.url}/?services=qdrant,redis`, viewport);
      await enterKey(page);
      await statusMatches(page, /^Valid/);
      await page.focus('#preset');
      for (let i = 0; i < 3; i++) await page.keyboard.press('ArrowDown');
      const browsed = await page.inputValue('#preset');
      assert.notEqual(browsed, '');
      assert.equal(new URL(page.url()).searchParams.get('preset'), null, 'browsing applies nothing');
      assert.ok(await page.isVisible('#services-chooser'));
      assert.ok(await page.isChecked('#services-qdrant'));
      assert.match(await page.textContent('#apply-preset') ?? '', /^Use “/);
      await assertAccessible(page, 'a preset browsed, not applied');

      await page.click('#apply-preset');
      await page.waitForFunction((id) => new URLSearchParams(location.search).get('preset') === id, browsed);
      assert.equal(new URL(page.url()).searchParams.get('services'), null);
      assert.ok(await page.isHidden('#services-chooser'));
      assert.match(await page.textContent('#services-locked') ?? '', /decides the services/);
      assert.match(await page.textContent('#preset-state') ?? '', /It replaced your choice of 2 services and 0 skill packs\./);
      await statusMatches(page, /^Valid/);
      await assertAccessible(page, 'a preset applied over an own choice');

      await page.click('#undo-preset');
      await page.waitForFunction(() => new URLSearchParams(location.search).get('services') === 'qdrant,redis' && !location.search.includes('preset='));
      assert.ok(await page.isChecked('#services-qdrant'));
      assert.equal(await page.inputValue('#preset'), '');

      await page.selectOption('#preset', 'web-agent');
      await page.click('#apply-preset');
      await page.click('#customise');
      await page.waitForFunction(() => !location.search.includes('preset=') && new URLSearchParams(location.search).get('services') === 'searxng,browserless');
      assert.ok(await page.isVisible('#services-chooser'));
      assert.deepEqual(problems, []);
      await page.context().close();
    });

    test('the memory: what the stack needs (estimate) and, when the answer carries it, the worst case (the limits)', async () => {
      const opened = await open(chromium(), `${server.url}/?preset=web-agent`, viewport);
      const { page } = opened;
      // the answer with memoryLimitMB beside estimatedMemoryMB, whether or not this API adds it yet
      let needed = 0;
      await page.route('**/api/v1/validate', async (route) => {
        const res = await route.fetch();
        const body = await res.json();
        needed = body.data.estimatedMemoryMB;
        body.data.memoryLimitMB = 18944;
        await route.fulfill({ response: res, json: body });
      });
      await enterKey(page);
      await statusMatches(page, /^Valid/);
      assert.equal(await page.textContent('#validation .memory'),
        `Memory the stack needs (estimate)${needed.toLocaleString('en')} MB (about ${(needed / 1024).toFixed(1)} GB)Worst case (sum of the containers’ memory limits)18,944 MB (about 18.5 GB)`);
      await finish(opened, 'the memory with its worst case');
    });

    test('an empty name: the check says a name is needed, a later answer keeps it, Generate makes no call; the engine\'s messages beside their fields', async () => {
      const { page, problems, posts } = await open(chromium(), `${server.url}/?preset=web-agent`, viewport);
      await enterKey(page);
      await statusMatches(page, /^Valid/);
      const answered = page.waitForResponse((r) => r.url().endsWith('/api/v1/validate'));
      await page.fill('#name', '');
      assert.match(await page.textContent('[data-msg-for="name"]') ?? '', /name is needed/, 'shown at once');
      await answered;
      // the answer of the delayed check (valid, without a name) is shown with the page's own problem
      await page.waitForFunction(() => document.querySelector('#validation .memory'));
      assert.match(await page.textContent('[data-msg-for="name"]') ?? '', /name is needed/, 'still shown after the answer');
      assert.match(await page.textContent('#validation .status') ?? '', /^Not ready: 1 problem to fix/);
      assert.equal(await page.getAttribute('#name', 'aria-invalid'), 'true');
      await assertAccessible(page, 'an empty name');
      await page.click('#generate');
      assert.match(await page.textContent('#generate-msg') ?? '', /a name is needed/);
      assert.equal(generateCalls(posts), 0);
      // the engine's own problems and warnings land beside their fields too
      await page.fill('#name', 'Bad Name');
      await page.waitForFunction(() => /name must be/.test(document.querySelector('[data-msg-for="name"]')?.textContent ?? ''));
      assert.equal(await page.getAttribute('#name', 'aria-invalid'), 'true');
      await page.fill('#name', 'web-stack');
      await page.check('#gpu');
      await page.waitForFunction(() => /GPU_UNUSED/.test(document.querySelector('[data-msg-for="gpu"] .warning')?.textContent ?? ''));
      assert.equal(await page.getAttribute('#name', 'aria-invalid'), null);
      assert.match(await statusMatches(page, /^Valid, with/), /^Valid, with 1 warning \(shown next to the fields\)\.$/);
      await assertAccessible(page, 'a warning beside its field');
      assert.deepEqual(problems, []);
      await page.context().close();
    });

    test('a spent check limit is shown in the check, with the wait, and no stale result', async () => {
      await withServer({ STACK_RATE_LIMIT_WRITE: '1' }, async (url) => {
        const opened = await open(chromium(), `${url}/`, viewport);
        const { page } = opened;
        await enterKey(page);
        await statusMatches(page, /^Valid/);
        await page.check('#gpu');
        const status = await statusMatches(page, /^The check failed/);
        assert.match(status, /^The check failed: Too many requests: try again in \d+ s \(at \d\d:\d\d:\d\d\)\..* The check runs again then by itself\.$/);
        assert.equal(await page.locator('#validation .memory').count(), 0, 'no stale result beside the refusal');
        assert.ok(await inView(page, '#validation .status'));
        await finish(opened, 'the check refused with 429');
      });
    });

    test('radio buttons stay with their labels, every control is labelled, keyboard order', async () => {
      const { page, problems } = await open(chromium(), `${server.url}/`, viewport);
      for (const radio of await page.locator('input[name="deploymentType"]').all()) {
        const [input, text] = await radio.evaluate((r) => [r.getBoundingClientRect(), r.nextElementSibling!.getBoundingClientRect()].map((b) => ({ left: b.left, right: b.right, top: b.top })));
        assert.ok(text.left > input.right && text.left - input.right < 16, 'the text starts just right of its radio');
        assert.ok(Math.abs(text.top - input.top) < 8, 'on the same line');
      }
      const unlabelled = await page.evaluate(() => [...document.querySelectorAll('input, select, button')]
        .filter((c) => !(c as HTMLInputElement).labels?.length && !c.getAttribute('aria-label') && !(c.textContent ?? '').trim())
        .map((c) => c.id || c.outerHTML));
      assert.deepEqual(unlabelled, []);
      assert.equal(await page.getAttribute('#validation', 'aria-live'), 'polite');
      assert.equal(await page.getAttribute('#generate-msg', 'role'), 'alert');
      // focus order: the skip link, then the key field; the key by keyboard, then Enter
      await page.keyboard.press('Tab');
      assert.equal(await page.evaluate(() => document.activeElement?.className), 'skip');
      await page.keyboard.press('Tab');
      assert.equal(await page.evaluate(() => document.activeElement?.id), 'api-key');
      await page.keyboard.type(KEY);
      await page.keyboard.press('Enter');
      await statusMatches(page, /^Valid/);
      // tabbing on through the form: no focused control is hidden behind the summary bar or panel
      await page.click('#services-chooser details.group summary');
      const hidden: string[] = [];
      for (let i = 0; i < 60; i++) {
        await page.keyboard.press('Tab');
        const covered = await page.evaluate(() => {
          const focused = document.activeElement as HTMLElement;
          const summary = document.getElementById('summary')!;
          if (!focused || summary.contains(focused)) return '';
          const f = focused.getBoundingClientRect();
          const s = summary.getBoundingClientRect();
          const inside = f.top >= s.top && f.bottom <= s.bottom && f.left >= s.left && f.right <= s.right;
          return inside ? focused.id || focused.outerHTML.slice(0, 80) : '';
        });
        if (covered) hidden.push(covered);
      }
      assert.deepEqual(hidden, [], 'focus not obscured');
      // Enter in a search box does not generate
      await page.focus('#services-search');
      await page.keyboard.type('redis');
      await page.keyboard.press('Enter');
      assert.equal(await page.textContent('#generate-msg'), '');
      assert.deepEqual(problems, []);
      // the checker itself finds what it should: a control without a label, a printed null
      await page.evaluate(() => {
        const input = document.createElement('input');
        input.id = 'planted';
        document.getElementById('key-status')!.append(input, ' null ');
      });
      const found = (await accessibilityProblems(page)).join('\n');
      assert.match(found, /^label /m);
      assert.match(found, /prints null/);
      await page.context().close();
    });
  });
}
