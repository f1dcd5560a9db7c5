// End-to-end: lessons walked as a learner would (typing kubectl, filling
// the console, clicking the inspector's buttons), and a permalink that opens
// the same state the learner had.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { mkdirSync } from 'node:fs';
import { ROOT, startServer, launch, openApp, axeViolations } from './harness.mjs';

const SHOTS = join(ROOT, 'target/e2e-screenshots');
mkdirSync(SHOTS, { recursive: true });
let server, browser;

before(async () => {
  server = await startServer();
  browser = await launch();
});
after(async () => {
  await browser?.close();
  server?.stop();
});

async function openLesson(page, id) {
  await page.click('#lessons-button');
  await page.click(`.lesson-open[data-lesson="${id}"]`);
  await page.waitForSelector(`#lesson-pane[data-lesson="${id}"][data-step="1"]`);
}

async function kubectl(page, line) {
  await page.fill('#kubectl-file', '');
  await page.fill('#kubectl-line', line);
  await page.click('#kubectl-run');
}

// Fills the console as a learner would: method, path, the query fields
// given, a body; then sends.
async function consoleSend(page, method, path, params = {}, body = '') {
  await page.selectOption('#console-method', method);
  await page.fill('#console-path', path);
  for (const name of ['resourceVersion', 'limit', 'continue']) {
    await page.fill(`#q-${name}`, params[name] ?? '');
  }
  for (const flag of ['watch', 'allowWatchBookmarks', 'sendInitialEvents']) {
    await page.setChecked(`#q-${flag}`, Boolean(params[flag]));
  }
  if (method !== 'GET') await page.fill('#console-body', body);
  await page.click('#console-send');
}

// Opens an object in the inspector, as a learner types it.
async function inspect(page, kind, namespace, name) {
  await page.fill('#open-kind', kind);
  await page.fill('#open-namespace', namespace);
  await page.fill('#open-name', name);
  await page.click('#open-go');
}

async function passes(page, step) {
  await page.waitForSelector(`#lesson-pane[data-step="${step}"] #lesson-check.passed`, { timeout: 10000 });
}

async function next(page, step) {
  await page.click('#lesson-next');
  await page.waitForSelector(`#lesson-pane[data-step="${step}"] #lesson-check.waiting`);
}

// The value a step's "Try" line shows for a query parameter (the lesson
// fills in what the learner's own earlier requests returned).
async function tried(page, name) {
  const text = await page.locator('.lesson-try code').last().textContent();
  return new URL(text.replace(/^GET /, 'http://x')).searchParams.get(name);
}

test('a learner lists, then watches from the list\'s resourceVersion, by typing', async () => {
  const { context, page, errors } = await openApp(browser, server.url);
  await openLesson(page, 'watch-from-rv');
  assert.match(await page.textContent('#lesson-check'), /Not yet/);
  await kubectl(page, 'get configmaps');
  await passes(page, 1);
  await next(page, 2);
  const rv = await tried(page, 'resourceVersion');
  assert.match(rv, /^\d+$/);
  await consoleSend(page, 'GET', '/api/v1/namespaces/default/configmaps', { watch: true, resourceVersion: rv });
  await passes(page, 2);
  await next(page, 3);
  await kubectl(page, 'create configmap demo --from-literal=colour=blue');
  await passes(page, 3);
  await next(page, 4);
  await kubectl(page, 'label configmap demo tier=web');
  assert.ok(await page.isVisible('#lesson-check.waiting'), 'a MODIFIED alone is not the whole step');
  await kubectl(page, 'delete configmap demo');
  await passes(page, 4);
  assert.match(await page.textContent('#lesson-finished'), /finished/);
  // The address carries the lesson, the step and the seed.
  assert.match(page.url(), /lesson=watch-from-rv&step=4&seed=1/);
  await page.screenshot({ path: join(SHOTS, 'lesson-watch-from-rv.png') });
  assert.deepEqual(errors, []);
  await context.close();
});

test('a learner reads 1,253 pods in chunks of 500, and a permalink opens the same state', async () => {
  const { context, page, errors } = await openApp(browser, server.url);
  await openLesson(page, 'chunked-lists');
  await consoleSend(page, 'GET', '/api/v1/namespaces/test/pods', { limit: '500' });
  await passes(page, 1);
  assert.match(await page.textContent('#console-panel'), /"remainingItemCount": 753/);
  await next(page, 2);
  await consoleSend(page, 'GET', '/api/v1/namespaces/test/pods', { limit: '500', continue: await tried(page, 'continue') });
  await passes(page, 2);
  assert.match(await page.textContent('#console-panel'), /"remainingItemCount": 253/);
  await next(page, 3);
  const revision = await page.textContent('#head-rv');
  const token = await tried(page, 'continue');
  await kubectl(page, 'run latecomer -n test --image=nginx');
  await consoleSend(page, 'GET', '/api/v1/namespaces/test/pods', { limit: '500', continue: token });
  await passes(page, 3);
  const link = page.url();
  assert.match(link, /lesson=chunked-lists&step=3&seed=1/);
  assert.deepEqual(errors, []);
  await context.close();

  // Someone else opens the link: the same step, the same revision, the
  // same continue token to type.
  const other = await openApp(browser, link);
  await other.page.waitForSelector('#lesson-pane[data-lesson="chunked-lists"][data-step="3"]');
  assert.equal(await other.page.textContent('#head-rv'), revision);
  assert.equal(await tried(other.page, 'continue'), token);
  await other.page.click('#lesson-show-me');
  await passes(other.page, 3);
  assert.deepEqual(other.errors, []);
  await other.context.close();
});

test('a learner deletes a ConfigMap held by two finalizers, clicking the inspector\'s buttons', async () => {
  const { context, page, errors } = await openApp(browser, server.url);
  await openLesson(page, 'finalizers');
  const cm = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: two-phase\n  finalizers: [example.com/first, example.com/second]\n';
  await consoleSend(page, 'POST', '/api/v1/namespaces/default/configmaps', {}, cm);
  await passes(page, 1);
  await next(page, 2);
  await consoleSend(page, 'DELETE', '/api/v1/namespaces/default/configmaps/two-phase');
  await passes(page, 2);
  await next(page, 3);
  await inspect(page, 'configmaps', 'default', 'two-phase');
  await page.click('.remove-finalizer[data-finalizer="example.com/first"]');
  await passes(page, 3);
  await next(page, 4);
  await page.click('.remove-finalizer[data-finalizer="example.com/second"]');
  await consoleSend(page, 'GET', '/api/v1/namespaces/default/configmaps/two-phase');
  await passes(page, 4);
  // "Reset this step" takes the cluster back to the step's start: the
  // object is there again with its one finalizer, and the check waits.
  await page.click('#lesson-reset');
  await page.waitForSelector('#lesson-pane[data-step="4"] #lesson-check.waiting');
  await page.fill('#open-name', 'two-phase');
  await page.click('#open-go');
  await page.waitForSelector('.remove-finalizer[data-finalizer="example.com/second"]');
  // In Chinese, the same lesson.
  await page.selectOption('#lesson-lang', 'zh');
  assert.match(await page.textContent('#lesson-step-title'), /最后一个/);
  assert.match(page.url(), /lang=zh/);
  // The rest of the page follows: panel headings, buttons, the inspector's
  // lifecycle phases (the API's own words, like ADDED or resourceVersion,
  // stay as they are).
  assert.equal(await page.textContent('#lanes-panel > h2'), '监视通道');
  assert.equal(await page.textContent('#compact'), '立即压缩');
  assert.equal(await page.textContent('#phases [data-phase="terminating"]'), '终止中');
  assert.equal(await page.getAttribute('html', 'lang'), 'zh');
  await page.selectOption('#lesson-lang', 'en');
  assert.equal(await page.textContent('#lanes-panel > h2'), 'Watch lanes');
  assert.equal(await page.getAttribute('html', 'lang'), 'en');
  assert.deepEqual(errors, []);
  await context.close();
});

test("who owns this field: the inspector's tree shows both appliers, the conflict, and the shared field", async () => {
  const { context, page, errors } = await openApp(browser, server.url);
  await openLesson(page, 'who-owns-this-field');
  await page.click('#lesson-show-me');
  await passes(page, 1);
  await inspect(page, 'configmaps', 'default', 'shared');
  await page.waitForSelector('#ownership .fo-row[data-path=".data.colour"] .fo-badge');
  await next(page, 2);
  await page.click('#lesson-show-me');
  await passes(page, 2);
  // Bob's apply was refused: the tree marks the field alice holds.
  await page.waitForSelector('#ownership .fo-row.fo-conflict[data-path=".data.colour"]');
  assert.match(await page.textContent('#ownership .fo-conflict'), /alice/);
  await next(page, 3);
  await page.click('#lesson-show-me');
  await passes(page, 3);
  // Shared: both managers own data.size.
  await page.waitForFunction(() =>
    document.querySelectorAll('#ownership .fo-row[data-path=".data.size"] .fo-badge').length === 2);
  await page.locator('#inspector-panel').screenshot({ path: join(SHOTS, 'field-ownership.png') });
  // The lesson pane, the ownership badges and the explorer's highlighted
  // cell are readable in both themes.
  await page.selectOption('#rv-verb', 'watch');
  for (const theme of ['light', 'dark']) {
    await page.selectOption('#view-theme', theme);
    assert.deepEqual(await axeViolations(page), [], `in the ${theme} theme`);
  }
  assert.deepEqual(errors, []);
  await context.close();
});

test('the resourceVersion explorer sends a request and highlights the cell of the table that explains it', async () => {
  const { context, page, errors } = await openApp(browser, server.url);
  const cell = () => page.textContent('#rv-table .rv-cell.on');
  await page.selectOption('#rv-verb', 'list');
  await page.selectOption('#rv-match', 'Exact');
  await page.click('#rv-set-head');
  assert.equal(await cell(), 'Exact');
  await page.click('#rv-send');
  await page.waitForSelector('#rv-answer.good');
  assert.match(await page.textContent('#rv-answer'), /200 — \d+ items at resourceVersion \d+/);
  // Exact without a resourceVersion: the table says Invalid, and so does the server.
  await page.click('#rv-set-unset');
  assert.equal(await cell(), 'Invalid');
  await page.click('#rv-send');
  await page.waitForSelector('#rv-answer.bad');
  // A watch from "0": get state and start at any; the events go to a lane.
  await page.selectOption('#rv-verb', 'watch');
  await page.click('#rv-set-zero');
  assert.equal(await cell(), 'Get State and Start at Any');
  await page.click('#rv-send');
  await page.waitForSelector('#rv-answer.good');
  await page.locator('#lane-1-events .event.added').first().waitFor();
  await page.locator('#explorer-panel').screenshot({ path: join(SHOTS, 'rv-explorer.png') });
  assert.deepEqual(errors, []);
  await context.close();
});
