import * as fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { chromium, type Browser, type Locator, type Page } from 'playwright-core';
import { EngramHarness, startEngram, turnsBody } from '../support/engram-harness';

// eslint-disable-next-line @typescript-eslint/no-require-imports -- a plain JS script, typed here
const { buildInspector } = require('../../scripts/build-inspector') as { buildInspector: () => string };

/*
 * The web inspector in a real headless Chromium (Debian's package, driven by playwright-core) against
 * a real embedded engram with API keys: the key prompt, picking a user from the keyboard, the kind
 * filter, a corrected memory's timeline, the recall debugger's score components and budget cut, and
 * the pipeline with and without the admin key. ENGRAM_INSPECTOR_SCREENSHOT=<file> also saves a
 * screenshot (the one in docs/ is taken that way).
 */
const chromiumPath = [process.env.ENGRAM_CHROMIUM, '/usr/bin/chromium'].find((candidate) => candidate && fs.existsSync(candidate));
if (!chromiumPath) {
  console.warn(
    "\n!!! NO CHROMIUM: the web inspector browser tests are SKIPPED. Install Debian's `chromium` (`.ci/run` does) or set ENGRAM_CHROMIUM to its path. !!!\n",
  );
}
const inBrowser = chromiumPath ? describe : describe.skip;

inBrowser('web inspector in Chromium', () => {
  let engram: EngramHarness;
  let browser: Browser;
  let page: Page;
  let url: string;
  const tenant = { Authorization: 'Bearer key-acme' };

  beforeAll(async () => {
    buildInspector();
    engram = await startEngram({ env: { ENGRAM_API_KEYS: 'key-acme=acme,key-beta=beta', ENGRAM_ADMIN_KEY: 'admin-secret' } });
    await engram.app.listen(0, '127.0.0.1');
    url = `http://127.0.0.1:${(engram.app.getHttpServer().address() as AddressInfo).port}`;
    let turnNo = 0;
    const say = async (userId: string, sessionId: string, text: string, auth = tenant) => {
      turnNo += 1;
      const turn = { turnId: `t${turnNo}`, text, occurredAt: new Date(Date.UTC(2026, 10, 30, 8, turnNo)).toISOString() };
      return (
        await engram
          .http()
          .post('/v1/turns')
          .set(auth)
          .send(turnsBody(userId, sessionId, [turn]))
          .expect(202)
      ).body.position as string;
    };
    await say('laozhou', 's1', '我叫老周，我们用 MySQL');
    await say('laozhou', 's1', '以后报价先给区间再给明细');
    await say('laozhou', 's2', 'I prefer aisle seats on long flights');
    const after = await say('laozhou', 's2', '不是MySQL，是PostgreSQL');
    await say('ann', 's1', 'my editor is emacs');
    await say('someone-elses', 's1', 'I live in Lisbon', { Authorization: 'Bearer key-beta' });
    await engram.http().post('/v1/recall').set(tenant).send({ userId: 'laozhou', query: '数据库', after }).expect(200);

    browser = await chromium.launch({ executablePath: chromiumPath, headless: true, args: ['--no-sandbox'] });
    page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    page.setDefaultTimeout(10_000);
  });
  afterAll(async () => {
    await browser?.close();
    await engram?.destroy();
  });

  const memoryRows = () => page.locator('#panel-memories tbody tr[data-memory]');

  it('serves the page without a key but shows no data until one is given; a wrong key is refused', async () => {
    const html = await fetch(`${url}/inspector`);
    expect(html.status).toBe(200);
    expect(html.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect((await fetch(`${url}/v1/users`)).status).toBe(401);

    await page.goto(`${url}/inspector`);
    await page.getByRole('heading', { name: 'API key' }).waitFor();
    expect(await page.locator('#app').isHidden()).toBe(true);
    await focused(page.locator('#key-input'));

    await page.locator('#key-input').fill('not-a-key');
    await page.keyboard.press('Enter');
    await page.getByRole('alert').filter({ hasText: 'That key was refused' }).waitFor();

    await page.locator('#key-input').fill('key-acme');
    await page.keyboard.press('Enter');
    await page.locator('#app').waitFor();
    // The tenant's users only: the other tenant's is not listed.
    expect(await page.locator('#user-list [role="option"]').allTextContents()).toEqual(['ann', 'laozhou']);
    expect(await page.evaluate('sessionStorage.getItem("engram.inspector.key")')).toBe('key-acme');
  });

  it('picks a user from the keyboard: / focuses the search, typing filters, Enter opens', async () => {
    await page.locator('body').click({ position: { x: 700, y: 600 } });
    await page.keyboard.press('/');
    await focused(page.locator('#user-search'));
    await page.keyboard.type('zhou');
    expect(await page.locator('#user-list [role="option"]').allTextContents()).toEqual(['laozhou']);
    await page.keyboard.press('Enter');
    await page.locator('#user-title', { hasText: 'laozhou' }).waitFor();
    await memoryRows().first().waitFor();
    const contents = (await memoryRows().allTextContents()).join('\n');
    expect(contents).toContain('PostgreSQL');
    expect(contents).toContain('aisle');
    expect(contents).toContain('报价');
  });

  it('arrow keys move between users and Enter opens the one focused', async () => {
    await page.keyboard.press('/');
    await page.keyboard.press('Backspace');
    await page.keyboard.press('ArrowDown'); // into the list: ann
    await focused(page.locator('#user-list [role="option"]', { hasText: 'ann' }));
    await page.keyboard.press('ArrowDown');
    await focused(page.locator('#user-list [role="option"]', { hasText: 'laozhou' }));
    await page.keyboard.press('ArrowUp');
    await page.keyboard.press('Enter');
    await page.locator('#user-title', { hasText: 'ann' }).waitFor();
    await memoryRows().filter({ hasText: 'emacs' }).first().waitFor();
    await page.keyboard.press('/');
    await page.keyboard.type('laozhou');
    await page.keyboard.press('Enter');
    await page.locator('#user-title', { hasText: 'laozhou' }).waitFor();
    await memoryRows().filter({ hasText: 'PostgreSQL' }).first().waitFor();
  });

  it('the kind filter narrows the tables to the kinds checked, and unchecking shows them all again', async () => {
    const all = await memoryRows().count();
    const kinds = await page.locator('#panel-memories tbody tr[data-memory] .kind').allTextContents();
    expect(new Set(kinds).size).toBeGreaterThan(1);
    await page.locator('#panel-memories .chip', { hasText: 'procedure' }).locator('input').check();
    const shown = await page.locator('#panel-memories tbody tr[data-memory] .kind').allTextContents();
    expect(shown.length).toBeGreaterThan(0);
    expect(new Set(shown)).toEqual(new Set(['procedure']));
    expect(await memoryRows().first().textContent()).toContain('报价');
    await page.locator('#panel-memories .chip', { hasText: 'procedure' }).locator('input').uncheck();
    expect(await memoryRows().count()).toBe(all);
  });

  it("shows a corrected memory's history on a timeline: the old value, when it was valid, and the decision that replaced it", async () => {
    const row = memoryRows().filter({ hasText: 'database' }).first();
    await row.focus();
    await page.keyboard.press('Enter');
    const entries = page.locator('ol.timeline > li');
    await entries.nth(1).waitFor();
    expect(await entries.count()).toBe(2);
    // The words of the source turns arrive after the versions.
    await page.locator('ol.timeline .source-turns li', { hasText: '不是MySQL，是PostgreSQL' }).waitFor();
    const [past, current] = await entries.allTextContents();
    expect(past).toContain('MySQL');
    expect(past).toContain('Superseded by v2 “PostgreSQL”');
    expect(past).toMatch(/2026-11-30 08:01Z → 2026-11-30 08:04Z/);
    expect(past).toContain('t1');
    expect(past).toContain('我叫老周，我们用 MySQL');
    expect(current).toContain('PostgreSQL');
    expect(current).toContain('Current value');
    expect(current).toContain('t4');
    expect(current).toContain('不是MySQL，是PostgreSQL');
    expect(current).not.toContain('我叫老周');
    const screenshot = process.env.ENGRAM_INSPECTOR_SCREENSHOT;
    if (screenshot) await page.screenshot({ path: path.resolve(screenshot) });
  });

  it('the recall debugger shows every score component and what the budget cut', async () => {
    await page.locator('#tab-memories').focus();
    await page.keyboard.press('ArrowRight');
    await hasAttribute(page.locator('#tab-recall'), 'aria-selected', 'true');
    await page.locator('#panel-recall input[name="query"]').fill('我们用什么数据库，座位呢');
    await page.keyboard.press('Enter');
    const scores = page.locator('#recalled-memories');
    await scores.waitFor();
    const headers = await scores.locator('thead th').allTextContents();
    expect(headers).toEqual(
      expect.arrayContaining(['Score', 'relevance', 'coverage', 'decay', 'importance', 'confidence', 'usage', 'prior', 'steering']),
    );
    const relevance = await scores.locator('td[data-component="relevance"]').allTextContents();
    expect(relevance.length).toBeGreaterThan(0);
    expect(relevance.every((value) => /^\d+(\.\d+)?$/.test(value))).toBe(true);
    expect(await page.locator('#cut-title').textContent()).toContain('Cut by the budget 0');

    await page.locator('#panel-recall input[name="budget"]').fill('50');
    await page.locator('#panel-recall input[name="query"]').focus();
    await page.keyboard.press('Enter');
    await page.locator('#cut-memories').waitFor();
    expect(await page.locator('#cut-memories tbody tr').count()).toBeGreaterThan(0);
    expect(await page.locator('#cut-memories td[data-component="decay"]').first().textContent()).toMatch(/^\d/);
  });

  it('the pipeline shows the tenant its pending events; the admin key opens lag per stage, projection versions and dead letters', async () => {
    await page.locator('#tab-pipeline').click();
    await page.getByRole('heading', { name: 'Admin data needs the admin key' }).waitFor();
    expect(await page.locator('#panel-pipeline .summary-line').textContent()).toMatch(/^\d+ events pending/);
    expect(await page.locator('#stages').count()).toBe(0); // the deployment's lag is not a tenant's to see
    await page.locator('#admin-key').fill('admin-secret');
    await page.keyboard.press('Enter');
    await page.locator('#stages tbody tr').first().waitFor();
    expect(await page.locator('#stages').textContent()).toContain('memory.turns.v1');
    await page.locator('#projections').waitFor();
    expect(await page.locator('#projections tbody tr').allTextContents()).toEqual(['facts11', 'sessions11', 'search11']);
    expect(await page.locator('#dead-letters').textContent()).toContain('memory.turns.v1');
  });
});

/** Waits (bounded) until the element has the focus: key presses act asynchronously in the page. */
function focused(locator: Locator): Promise<void> {
  // The page's own globals: this file is compiled without the DOM's types.
  return until(
    () =>
      locator.evaluate((element) => element === (globalThis as unknown as { document: { activeElement: unknown } }).document.activeElement),
    'to be focused',
  );
}

function hasAttribute(locator: Locator, name: string, value: string): Promise<void> {
  return until(async () => (await locator.getAttribute(name)) === value, `to have ${name}="${value}"`);
}

async function until(check: () => Promise<boolean>, what: string): Promise<void> {
  for (let tries = 0; tries < 50; tries++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`expected the element ${what}`);
}
