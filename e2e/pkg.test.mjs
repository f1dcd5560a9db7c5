// The npm package (pkg/, built by ./scripts/build-pkg.sh) in Chromium: the
// same module the Node tests load, imported by a page, with no UI.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { createServer } from 'node:http';
import { readFile } from 'node:fs/promises';
import { ROOT, launch } from './harness.mjs';

const TYPES = { '.js': 'text/javascript', '.wasm': 'application/wasm', '.json': 'application/json', '.html': 'text/html' };

// pkg/ as a plain static site would serve it (the package fetches its wasm
// next to index.js), with a blank page to import it from.
function servePkg() {
  const root = join(ROOT, 'pkg');
  const srv = createServer(async (req, res) => {
    const path = new URL(req.url, 'http://x').pathname;
    if (path === '/favicon.ico') {
      res.writeHead(204).end();
      return;
    }
    if (path === '/') {
      res.writeHead(200, { 'Content-Type': 'text/html' }).end('<!DOCTYPE html><title>kubesim package</title>');
      return;
    }
    try {
      const body = await readFile(join(root, path.replace(/\.\.+/g, '')));
      res.writeHead(200, { 'Content-Type': TYPES[path.slice(path.lastIndexOf('.'))] || 'application/octet-stream' }).end(body);
    } catch {
      res.writeHead(404).end();
    }
  });
  return new Promise((resolve) => srv.listen(0, '127.0.0.1', () => resolve(srv)));
}

let server;
let browser;
let url;
before(async () => {
  server = await servePkg();
  url = `http://127.0.0.1:${server.address().port}/`;
  browser = await launch();
});
after(async () => {
  await browser?.close();
  server?.close();
});

test('the headless package runs in Chromium: requests, a watch, kubectl, time, export', async () => {
  const page = await browser.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  await page.goto(url);
  const got = await page.evaluate(async () => {
    const { Simulator } = await import('/index.js');
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
