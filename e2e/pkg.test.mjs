// The npm package (pkg/, built by ./scripts/build-pkg.sh) in Chromium: the
// same module the Node tests load, imported by a page, with no UI.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launch, serveFiles } from './harness.mjs';

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

test('the headless package runs in Chromium: requests, a watch, kubectl, time, export', async () => {
  const page = await browser.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  await page.goto(server.url);
  const got = await page.evaluate(async () => {
    const { Simulator } = await import('/pkg/index.js');
    const sim = await Simulator.create({ seed: 5 });
    const cms = '/api/v1/namespaces/default/configmaps';
    const w = sim.watch(`${cms}?resourceVersion=${sim.resourceVersion}`);
    const created = sim.request('POST', cms, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'page' } } });
    const ev = await w.next();
    w.close();
    const printed = sim.kubectl('get configmap page');
    sim.advance('2m');
    const aged = sim.kubectl('get configmap page');
    const copy = await Simulator.import(sim.export());
    return {
      status: created.status,
      event: `${ev.value.type} ${ev.value.object.metadata.name}`,
      printed,
      aged,
      same: JSON.stringify(copy.request('GET', `${cms}/page`).body) === JSON.stringify(sim.request('GET', `${cms}/page`).body),
    };
  });
  assert.equal(got.status, 201);
  assert.equal(got.event, 'ADDED page');
  assert.match(got.printed, /^NAME\s+DATA\s+AGE\npage\s+0\s+0s\n$/);
  assert.match(got.aged, /page\s+0\s+2m\n$/);
  assert.equal(got.same, true);
  assert.deepEqual(errors, []);
  await page.close();
});
