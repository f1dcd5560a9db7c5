// End-to-end: the page's module in two parts (docs/browser.md). A page runs
// until ready on the part it loads first, fetches the second part after,
// and works whichever way the second part arrives. UI=dir tests another build.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, launch } from './harness.mjs';

let server, browser;
before(async () => {
  server = await startServer(process.env.UI);
  browser = await launch();
});
after(async () => {
  await browser?.close();
  server?.stop();
});

const marks = (page) => page.evaluate(() => performance.getEntriesByType('mark').map((m) => m.name));
// A page, its errors, and its requests for the second part by resource type
// ('fetch' or 'xhr'); `onFetch`, if given, answers the background fetch.
async function open(onFetch) {
  const context = await browser.newContext({ viewport: { width: 1400, height: 1600 } });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  const requests = [];
  page.on('request', (r) => { if (/_deferred\.wasm$/.test(r.url())) requests.push(r.resourceType()); });
  if (onFetch) {
    await page.route(/_deferred\.wasm$/, (route) => (route.request().resourceType() === 'fetch' ? onFetch(route) : route.continue()));
  }
  return { context, page, errors, requests };
}

async function kubectl(page, line) {
  await page.fill('#kubectl-line', line);
  await page.click('#kubectl-run');
  return (await page.textContent('#kubectl-output')) ?? '';
}

test('a fresh page and a reloaded one are ready before the second part of the module is fetched', async () => {
  const { context, page, errors, requests } = await open();
  for (const visit of ['fresh', 'reload']) {
    if (visit === 'fresh') await page.goto(server.url); else await page.reload();
    await page.waitForSelector('body[data-ready="1"]', { timeout: 20000 });
    // Nothing a page runs until ready is in the second part: if this fails,
    // remake the list with ./scripts/split-profile.sh.
    assert.deepEqual(requests.filter((t) => t !== 'fetch'), [], `${visit}: the second part was loaded synchronously`);
    assert.ok(!(await marks(page)).includes('kubesim:deferred-sync'), `${visit}: a function of the second part ran before ready`);
    // Then it is fetched in the background, and what it holds works.
    await page.waitForFunction(() => performance.getEntriesByName('kubesim:deferred').length === 1);
    assert.equal(await kubectl(page, `kubectl create configmap ${visit} --from-literal=a=b`), `configmap/${visit} created\n`);
  }
  assert.deepEqual(requests, ['fetch', 'fetch']);
  assert.deepEqual(errors, []);
  await context.close();
});

test('a function of the second part called before it has arrived loads it there and then', async () => {
  // The background fetch never answers; the synchronous one does.
  const { context, page, errors, requests } = await open(() => {});
  await page.goto(server.url);
  await page.waitForSelector('body[data-ready="1"]', { timeout: 20000 });
  assert.ok(!(await marks(page)).includes('kubesim:deferred'));
  // kubectl's imperative commands are not run on the way to ready.
  assert.equal(await kubectl(page, 'kubectl create configmap early --from-literal=a=b'), 'configmap/early created\n');
  const after = await marks(page);
  assert.ok(after.includes('kubesim:deferred-sync') && after.includes('kubesim:deferred'), after.join(' '));
  assert.deepEqual(requests, ['fetch', 'xhr']);
  assert.deepEqual(JSON.parse(await kubectl(page, 'kubectl get configmap early -o json')).data, { a: 'b' });
  assert.deepEqual(errors, []);
  await context.close();
});

test('a background fetch of the second part that fails is not an error; the next call fetches it', async () => {
  const { context, page, errors } = await open((route) => route.abort());
  const warned = new Promise((resolve) => page.on('console', (m) => {
    if (m.type() === 'warning' && /second part of the module did not load/.test(m.text())) resolve();
  }));
  await page.goto(server.url);
  await page.waitForSelector('body[data-ready="1"]', { timeout: 20000 });
  await Promise.race([warned, new Promise((_, fail) => setTimeout(() => fail(new Error('no warning of the failed fetch')), 10000))]);
  assert.equal(await kubectl(page, 'kubectl create configmap later --from-literal=a=b'), 'configmap/later created\n');
  assert.ok((await marks(page)).includes('kubesim:deferred-sync'));
  assert.deepEqual(errors, []);
  await context.close();
});
