// The <kube-sim> element (pkg/kube-sim.js, built by ./scripts/build-pkg.sh)
// on the example documentation page, www/embed-example.html.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launch, serveFiles, axeViolations } from './harness.mjs';

let server;
let browser;
before(async () => {
  server = await serveFiles();
  browser = await launch();
});
after(async () => {
  await browser?.close();
  server?.stop();
});

async function openExample(viewport = { width: 1200, height: 900 }) {
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  await page.goto(`${server.url}www/embed-example.html`);
  return { context, page, errors };
}

const box = async (page, sel) => (await page.locator(sel).boundingBox()).height;

async function start(page, id) {
  await page.locator(`kube-sim#${id}`).scrollIntoViewIfNeeded();
  await page.waitForSelector(`kube-sim#${id}[ready]`, { timeout: 30000 });
}

test('elements load when first seen, at their final height, and each lesson runs on its own', async () => {
  const { context, page, errors } = await openExample();
  await page.waitForSelector('kube-sim#sim-watch[ready]', { timeout: 30000 });
  // Below the fold: a placeholder of the right height, no module mounted yet.
  assert.equal(await page.getAttribute('kube-sim#sim-chunks', 'ready'), null);
  const before = await box(page, 'kube-sim#sim-chunks');
  assert.equal(before, 560);
  assert.match(await page.locator('kube-sim#sim-chunks .ks-placeholder').textContent(), /loads here/);
  await start(page, 'sim-chunks');
  assert.equal(await box(page, 'kube-sim#sim-chunks'), before, 'no layout shift');
  await start(page, 'sim-finalizers');

  // Each element opened its own lesson, in its own cluster.
  await page.waitForSelector('#sim-watch #lesson-pane[data-lesson="watch-from-rv"]');
  await page.waitForSelector('#sim-finalizers #lesson-pane[data-lesson="finalizers"]');
  await page.waitForSelector('#sim-chunks #lesson-pane[data-lesson="chunked-lists"]', { timeout: 60000 });
  // The panels asked for, and only those.
  assert.equal(await page.locator('#sim-watch section.panel').count(), 2);
  assert.ok(await page.isVisible('#sim-watch #command-panel'));
  assert.ok(await page.isVisible('#sim-chunks #console-panel'));
  assert.equal(await page.locator('#sim-chunks #command-panel').count(), 0);

  // Doing the first step in one element turns its check green, not the others'.
  await page.locator('#sim-watch').scrollIntoViewIfNeeded();
  await page.fill('#sim-watch #kubectl-line', 'get configmaps');
  await page.press('#sim-watch #kubectl-line', 'Enter');
  await page.waitForSelector('#sim-watch #lesson-check.passed');
  assert.ok(await page.isVisible('#sim-finalizers #lesson-check.waiting'));
  // The ids are each element's own: the same id in three shadow roots.
  assert.equal(await page.locator('#lesson-check').count(), 3);
  assert.deepEqual(errors, []);
  await context.close();
});

// The element's module in two parts (docs/embedding.md, "Two parts"): how
// its second part came in, as the element's glue says.
const deferredState = (page) => page.evaluate(async () => (await import('/pkg/element/kubesim_element.js')).kubesimDeferredState());

test('an element is ready on its module\'s first part; the second comes after, or at once if a command needs it first', async () => {
  for (const hang of [false, true]) {
    const { context, page, errors } = await openExample();
    const asked = [];
    await page.route(/_deferred\.wasm$/, (route) => {
      asked.push(route.request().resourceType());
      // Hung: the background fetch never answers (the synchronous one does).
      return hang && route.request().resourceType() === 'fetch' ? undefined : route.continue();
    });
    await start(page, 'sim-watch');
    // Nothing an element runs until ready is in the second part: if this
    // fails, remake element/split-keep.txt (./scripts/split-profile.sh element).
    // (Strict with the background fetch hung: a stub can only read it then.)
    const atReady = await deferredState(page);
    if (hang) assert.equal(atReady, 'absent'); else assert.notEqual(atReady, 'sync');
    // Waited for by polling in the page: an async predicate would not do
    // (waitForFunction takes the promise it returns as a truthy answer).
    if (!hang) {
      await page.evaluate(async () => {
        const glue = await import('/pkg/element/kubesim_element.js');
        while (glue.kubesimDeferredState() !== 'background') await new Promise((r) => setTimeout(r, 20));
      });
    }
    await page.fill('#sim-watch #kubectl-line', 'create configmap split --from-literal=a=b');
    await page.press('#sim-watch #kubectl-line', 'Enter');
    await page.waitForSelector('#sim-watch #command-panel :text("configmap/split created")');
    assert.equal(await deferredState(page), hang ? 'sync' : 'background');
    assert.deepEqual(asked, hang ? ['fetch', 'xhr'] : ['fetch']);
    assert.deepEqual(errors, []);
    await context.close();
  }
});

test('elements that start together are ready on the first part too', async () => {
  // Windows tall enough to show two, then three, elements at once: they
  // start together (element/split-keep.txt is profiled in such windows).
  for (const height of [1600, 2400]) {
    const context = await browser.newContext({ viewport: { width: 1200, height } });
    const page = await context.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
    // The background fetch hung, so only a stub could bring the second part.
    await page.route(/_deferred\.wasm$/, (route) => (route.request().resourceType() === 'fetch' ? undefined : route.continue()));
    await page.goto(`${server.url}www/embed-example.html`);
    const shown = [];
    for (const el of await page.locator('kube-sim').all()) {
      const at = await el.boundingBox();
      if (at && at.y < height) shown.push(el);
    }
    assert.ok(shown.length >= (height === 1600 ? 2 : 3), `${shown.length} elements in a window ${height} tall`);
    for (const el of shown) await el.and(page.locator('[ready]')).waitFor({ timeout: 30000 });
    assert.equal(await deferredState(page), 'absent', `window ${height} tall`);
    assert.deepEqual(errors.filter((e) => !e.includes('favicon')), []);
    await context.close();
  }
});

test('elements with one cluster name share a cluster; its scenario is created', async () => {
  const { context, page, errors } = await openExample();
  await start(page, 'sim-shared-left');
  await start(page, 'sim-shared-right');
  await page.click('#sim-shared-right #lane-open');
  await page.waitForSelector('#sim-shared-right #lane-1-events .event.note:has-text("listed 2 items")');
  await page.fill('#sim-shared-left #kubectl-line', 'create configmap from-left --from-literal=a=b');
  await page.click('#sim-shared-left #kubectl-run');
  await page.waitForSelector('#sim-shared-right #lane-1-events .event.added:has-text("from-left")', { timeout: 5000 });
  await page.fill('#sim-shared-left #kubectl-line', 'get configmaps');
  await page.click('#sim-shared-left #kubectl-run');
  await page.waitForSelector('#sim-shared-left #command-panel :text("from-the-page")');
  // The lesson elements' clusters did not get it.
  await start(page, 'sim-watch');
  await page.fill('#sim-watch #kubectl-line', 'get configmap from-left');
  await page.press('#sim-watch #kubectl-line', 'Enter');
  await page.waitForSelector('#sim-watch #command-panel :text("configmaps \\"from-left\\" not found")');
  assert.deepEqual(errors, []);
  await context.close();
});

test('an element taken off the page stops; moved, it goes on; put back, it starts again on its shared cluster', async () => {
  const { context, page, errors } = await openExample();
  await start(page, 'sim-shared-left');
  await start(page, 'sim-shared-right');
  await page.fill('#sim-shared-left #kubectl-line', 'create configmap kept --from-literal=a=b');
  await page.click('#sim-shared-left #kubectl-run');
  await page.waitForSelector('#sim-shared-left #command-panel :text("configmap/kept created")');
  // Moved within the page: the same app, not restarted.
  const moved = await page.evaluate(() => {
    const el = document.getElementById('sim-shared-left');
    let stopped = 0;
    el.addEventListener('kube-sim-stopped', () => { stopped += 1; });
    el.parentElement.append(el);
    return new Promise((r) => setTimeout(() => r({ stopped, ready: el.hasAttribute('ready'), rows: el.shadowRoot.querySelectorAll('#command-panel').length }), 300));
  });
  assert.deepEqual(moved, { stopped: 0, ready: true, rows: 1 });
  // Taken off: its app stops and its mount point empties.
  const off = await page.evaluate(() => {
    const el = document.getElementById('sim-shared-left');
    window.__parked = el;
    return new Promise((r) => {
      // (Yew takes the app down on its next turn.)
      el.addEventListener('kube-sim-stopped', () => setTimeout(() => r(el.shadowRoot.querySelectorAll('.ks-body *').length), 200), { once: true });
      el.remove();
    });
  });
  assert.equal(off, 0, 'nothing left mounted');
  // Put back: it starts again, on the same shared cluster.
  await page.evaluate(() => document.getElementById('sim-shared-right').before(window.__parked));
  await start(page, 'sim-shared-left');
  await page.fill('#sim-shared-left #kubectl-line', 'get configmap kept -o name');
  await page.click('#sim-shared-left #kubectl-run');
  await page.waitForSelector('#sim-shared-left #command-panel :text("configmap/kept")');
  assert.deepEqual(errors, []);
  await context.close();
});

test('no style leaks either way, and axe finds nothing serious', async () => {
  const { context, page, errors } = await openExample();
  await start(page, 'sim-watch');
  const fonts = await page.evaluate(() => {
    const sim = document.querySelector('#sim-watch').shadowRoot;
    return {
      // The page styles its own buttons in Comic Sans; the element's keep theirs.
      inside: getComputedStyle(sim.querySelector('#kubectl-run')).fontFamily,
      // The app's `body` and `button` rules stay inside the element.
      body: getComputedStyle(document.body).fontFamily,
      margin: getComputedStyle(document.body).marginTop,
      outside: getComputedStyle(document.querySelector('h1')).fontFamily,
    };
  });
  assert.doesNotMatch(fonts.inside, /Comic/);
  assert.match(fonts.body, /Georgia/);
  assert.equal(fonts.margin, '32px');
  assert.match(fonts.outside, /system-ui/);
  for (const scheme of ['light', 'dark']) {
    await page.emulateMedia({ colorScheme: scheme });
    assert.deepEqual(await axeViolations(page), [], scheme);
  }
  assert.deepEqual(errors, []);
  await context.close();
});

test('the iframe page answers postMessage from its allowed origins only, and counts the rest', async () => {
  const context = await browser.newContext();
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  // One server, two origins: 127.0.0.1 and localhost.
  const allowed = server.url.replace(/\/$/, '');
  const other = allowed.replace('127.0.0.1', 'localhost');
  const frameOn = (origin) => `${origin}/pkg/embed.html?panels=kubectl&seed=3&origins=${encodeURIComponent(allowed)}`;
  const talk = async (hostOrigin, src, messages, wait) => {
    await page.goto(`${hostOrigin}/`);
    return page.evaluate(async ({ src, messages, wait }) => {
      const f = document.createElement('iframe');
      f.src = src;
      f.title = 'kubesim';
      f.style.cssText = 'width:900px;height:420px';
      document.body.append(f);
      await new Promise((resolve) => { f.onload = resolve; });
      const answers = [];
      addEventListener('message', (e) => answers.push({ origin: e.origin, data: e.data }));
      for (const m of messages) f.contentWindow.postMessage(m, '*');
      const deadline = Date.now() + wait;
      while (answers.length < messages.length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      return answers;
    }, { src, messages, wait });
  };

  // The host at an allowed origin, the frame at another: answered.
  const answers = await talk(allowed, frameOn(other), [
    { type: 'kubesim:request', id: 1, method: 'POST', path: '/api/v1/namespaces/default/configmaps',
      body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'via-message' } } },
    { type: 'kubesim:kubectl', id: 2, line: 'get configmap via-message -o name' },
    { type: 'kubesim:request', id: 3, method: 'GET', path: '/api/v1/namespaces/default/configmaps/nosuch' },
  ], 20000);
  const byId = Object.fromEntries(answers.map((a) => [a.data.id, a]));
  assert.equal(byId[1].origin, other);
  assert.equal(byId[1].data.type, 'kubesim:response');
  assert.equal(byId[1].data.status, 201);
  assert.equal(byId[1].data.body.metadata.name, 'via-message');
  assert.deepEqual(byId[2].data, { id: 2, type: 'kubesim:kubectl-output', text: 'configmap/via-message\n', failed: false });
  assert.equal(byId[3].data.status, 404);
  assert.equal(byId[3].data.body.reason, 'NotFound');
  // The frame shows what the messages did.
  const frame = page.frames().find((f) => f.url().includes('embed.html'));
  await frame.fill('#kubectl-line', 'get configmaps');
  await frame.press('#kubectl-line', 'Enter');
  await frame.waitForSelector('#command-panel :text("via-message")');

  // The host at an origin the frame does not allow: nothing answered, all counted.
  const ignored = await talk(other, frameOn(allowed), [
    { type: 'kubesim:request', id: 1, method: 'DELETE', path: '/api/v1/namespaces/default' },
    { type: 'kubesim:ignored', id: 2 },
  ], 1500);
  assert.deepEqual(ignored, []);
  const frame2 = page.frames().find((f) => f.url().includes('embed.html'));
  assert.equal(await frame2.evaluate(() => document.body.dataset.ignored), '2');
  assert.deepEqual(errors, []);
  await context.close();
});

test('a panic in the module is shown by every element of the page', async () => {
  const { context, page } = await openExample();
  await page.waitForSelector('kube-sim#sim-watch[ready]', { timeout: 30000 });
  const threw = await page.evaluate(async () => {
    const { loadModule } = await import('/pkg/kube-sim.js');
    const glue = await loadModule();
    try {
      glue.kubesimPanicForTest();
      return null;
    } catch (e) {
      return String(e);
    }
  });
  assert.match(threw, /unreachable|RuntimeError/);
  await page.waitForSelector('#sim-watch .ks-aborted[role="alert"]');
  assert.match(await page.textContent('#sim-watch .ks-aborted'), /a panic asked for by kubesimPanicForTest/);
  assert.ok(await page.getAttribute('kube-sim#sim-chunks', 'aborted'));
  await context.close();
});

test('a lesson by URL or inline, and the element is reachable from the keyboard', async () => {
  const { readFile } = await import('node:fs/promises');
  const { join } = await import('node:path');
  const { ROOT } = await import('./harness.mjs');
  const inline = await readFile(join(ROOT, 'lessons/finalizers.yaml'), 'utf8');
  const context = await browser.newContext({ viewport: { width: 1000, height: 1400 } });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  await page.goto(server.url);
  await page.evaluate((inline) => {
    document.body.innerHTML = `<button id="before">before</button>
      <kube-sim id="by-url" lesson="/pkg/element/lessons/dry-run.yaml" height="500" lang="zh"></kube-sim>
      <kube-sim id="inline" height="500"><script type="application/yaml" lesson></script></kube-sim>`;
    document.querySelector('#inline script').textContent = inline;
    const s = document.createElement('script');
    s.type = 'module';
    s.src = '/pkg/kube-sim.js';
    document.head.append(s);
  }, inline);
  await page.waitForSelector('#by-url #lesson-pane[data-lesson="dry-run"][lang="zh"]', { timeout: 30000 });
  await page.waitForSelector('#inline #lesson-pane[data-lesson="inline"]');
  assert.match(await page.textContent('#inline #lesson-pane h2'), /finalizers/);
  // The dry-run lesson's panels, as the lesson names them.
  assert.ok(await page.isVisible('#by-url #console-panel'));
  // Tab from the page's button goes into the first element's controls.
  await page.focus('#before');
  await page.keyboard.press('Tab');
  const focused = await page.evaluate(() => {
    const host = document.activeElement;
    return { host: host?.id, inner: host?.shadowRoot?.activeElement?.tagName };
  });
  assert.equal(focused.host, 'by-url');
  assert.ok(['BUTTON', 'INPUT', 'SELECT', 'TEXTAREA', 'A'].includes(focused.inner), JSON.stringify(focused));
  assert.deepEqual(errors, []);
  await context.close();
});
