// The page in a real browser: Debian's Chromium driven by playwright-core (no browser download), with
// every console error collected, and axe-core run inside the page for the WCAG 2.2 AA rules.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import { chromium, type Browser, type Page } from 'playwright-core';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const AXE_SOURCE = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
export const WCAG_22_AA = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'];

export const DESKTOP = { width: 1280, height: 800 };
export const PHONE = { width: 360, height: 780 };

export async function launch(): Promise<Browser> {
  if (!fs.existsSync(CHROMIUM)) {
    throw new Error(`no Chromium at ${CHROMIUM}: install it with \`sudo apt-get update && sudo apt-get install -y chromium\` `
      + '(or `npm run setup:test-tools`), or set CHROMIUM_PATH to a Chromium binary; the page tests need a real browser');
  }
  // root (as in CI containers) cannot use Chromium's sandbox
  const args = process.getuid?.() === 0 ? ['--no-sandbox'] : [];
  return chromium.launch({ executablePath: CHROMIUM, args });
}

export interface OpenPage {
  page: Page;
  /** console errors other than the 4xx answers the page expects, and page errors (a CSP violation is one) */
  problems: string[];
  /** the URL of every POST the page made, in order */
  posts: string[];
}

/** A new page (in a context of its own) on `url`, once the form is built. */
export async function open(browser: Browser, url: string, viewport = DESKTOP): Promise<OpenPage> {
  const context = await browser.newContext({ viewport, acceptDownloads: true });
  const page = await context.newPage();
  return watch(page, url);
}

/** Collects problems and POSTs on `page`, then loads `url`. */
export async function watch(page: Page, url: string): Promise<OpenPage> {
  const problems: string[] = [];
  const posts: string[] = [];
  page.on('console', (m) => { if (m.type() === 'error' && !/^Failed to load resource: the server responded with a status of 4\d\d/.test(m.text())) problems.push(m.text()); });
  page.on('pageerror', (e) => problems.push(e.message));
  page.on('request', (r) => { if (r.method() === 'POST') posts.push(new URL(r.url()).pathname); });
  await page.goto(url);
  await page.waitForSelector('#stack-form[data-ready="true"]');
  return { page, problems, posts };
}

/**
 * axe-core's WCAG 2.2 AA violations of the page as it is now (rule id, impact, the first targets), plus a
 * `null` printed anywhere in the page's text. The source is evaluated through the DevTools protocol, which
 * the page's CSP does not govern, so the CSP stays as strict as served.
 */
export async function accessibilityProblems(page: Page): Promise<string[]> {
  if (!await page.evaluate(() => 'axe' in window)) await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(async (tags) => {
    const result = await (window as unknown as { axe: { run: (c: unknown, o: unknown) => Promise<{ violations: { id: string; impact: string; nodes: { target: string[] }[] }[] }> } })
      .axe.run(document, { runOnly: { type: 'tag', values: tags }, resultTypes: ['violations'] });
    return result.violations.map((v) => `${v.id} (${v.impact}): ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(' | ')}`);
  }, WCAG_22_AA);
  const text = await page.evaluate(() => document.body.innerText);
  if (/\bnull\b|\bundefined\b|\[object /.test(text)) violations.push(`the page prints null, undefined or [object …]: ${/.{0,40}(\bnull\b|\bundefined\b|\[object ).{0,40}/.exec(text)?.[0]}`);
  return violations;
}

/** Whether the whole of `selector` is inside the viewport now. */
export async function inView(page: Page, selector: string): Promise<boolean> {
  return page.locator(selector).first().evaluate((node) => {
    const box = node.getBoundingClientRect();
    return box.height > 0 && box.top >= 0 && box.left >= 0 && box.bottom <= window.innerHeight && box.right <= window.innerWidth;
  });
}
