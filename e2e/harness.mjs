// Shared set-up for the browser tests: a kubesim server with the built app
// (`kubesim serve --ui dist`) on a free loopback port, and Debian's Chromium
// driven by playwright-core.
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer } from 'node:net';
import { chromium } from 'playwright-core';

export const ROOT = new URL('..', import.meta.url).pathname;

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
    srv.on('error', reject);
  });
}

export async function startServer(ui = join(ROOT, 'dist')) {
  const port = await freePort();
  const bin = process.env.KUBESIM_BIN || join(ROOT, 'target/debug/kubesim');
  const dir = mkdtempSync(join(tmpdir(), 'kubesim-e2e-'));
  const proc = spawn(bin, ['serve', '--listen', `127.0.0.1:${port}`, '--ui', ui,
    '--kubeconfig', join(dir, 'kubeconfig')], { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error('kubesim did not start: ' + out)), 20000);
    proc.stdout.on('data', (d) => {
      out += d;
      if (out.includes('/ui/')) { clearTimeout(timer); resolve(); }
    });
    proc.on('exit', (code) => reject(new Error(`kubesim exited ${code}: ${out}`)));
  });
  return { url: `http://127.0.0.1:${port}/ui/`, stop: () => proc.kill('SIGTERM') };
}

export async function launch() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
}

export async function openApp(browser, url, viewport = { width: 1400, height: 1600 }) {
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(url);
  await page.waitForSelector('body[data-ready="1"]', { timeout: 20000 });
  return { context, page, errors };
}

// The page's 1,000-replica rollout (the benchmarks' figure): ten nodes with
// room for 110 pods each, then one Deployment POST, which settles every
// controller before it answers; its seconds, in a fresh page.
export async function rolloutSeconds(browser, url) {
  const { page, context } = await openApp(browser, url);
  const result = await page.evaluate(() => {
    const req = (m, path, body, ct) => window.wasmBindings.kubesimRequest(m, path, JSON.stringify(body), ct);
    for (let i = 0; i < 10; i++) {
      const name = `bench-${i}`;
      req('POST', '/api/v1/nodes', { metadata: { name }, spec: { podCIDR: `10.250.${i}.0/24` } });
      req('PATCH', `/api/v1/nodes/${name}/status`, { status: { allocatable: { cpu: '32', memory: '64Gi', pods: '110' },
        conditions: [{ type: 'Ready', status: 'True' }] } }, 'application/merge-patch+json');
    }
    const d = { metadata: { name: 'big' }, spec: { replicas: 1000, selector: { matchLabels: { app: 'big' } },
      template: { metadata: { labels: { app: 'big' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } } };
    const start = performance.now();
    const r = req('POST', '/apis/apps/v1/namespaces/default/deployments', d);
    const ms = performance.now() - start;
    const got = JSON.parse(req('GET', '/apis/apps/v1/namespaces/default/deployments/big').body);
    return { status: r.status, ms, available: got.status.availableReplicas };
  });
  if (result.available !== 1000 || result.status !== 201) throw new Error(`rollout: ${JSON.stringify(result)}`);
  await context.close();
  return result.ms / 1000;
}

// The serious and critical accessibility violations axe-core finds on the
// page as it stands.
export async function axeViolations(page) {
  await page.addScriptTag({ path: join(ROOT, 'node_modules/axe-core/axe.min.js') });
  const r = await page.evaluate(() => window.axe.run(document, { resultTypes: ['violations'] }));
  return r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.impact} ${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

const TYPES = {
  '.js': 'text/javascript', '.mjs': 'text/javascript', '.wasm': 'application/wasm', '.json': 'application/json',
  '.html': 'text/html', '.css': 'text/css', '.yaml': 'application/yaml',
};

// The repository's pkg/ and www/ as a plain static site serves them (the
// npm package and its example page), with a blank page at `/`; the URL.
// root: a directory with pkg/ and www/ (another build of the package, for
// an A/B); the repository's by default.
export async function serveFiles(root = ROOT) {
  const { createServer: http } = await import('node:http');
  const { readFile } = await import('node:fs/promises');
  const srv = http(async (req, res) => {
    const path = new URL(req.url, 'http://x').pathname;
    if (path === '/favicon.ico') return res.writeHead(204).end();
    if (path === '/') return res.writeHead(200, { 'Content-Type': 'text/html' }).end('<!DOCTYPE html><title>blank</title>');
    const parts = path.split('/').filter(Boolean);
    if (!['pkg', 'www'].includes(parts[0]) || parts.some((p) => p.startsWith('.'))) return res.writeHead(404).end();
    try {
      const body = await readFile(join(root, ...parts));
      res.writeHead(200, { 'Content-Type': TYPES[path.slice(path.lastIndexOf('.'))] || 'application/octet-stream' }).end(body);
    } catch {
      res.writeHead(404).end();
    }
  });
  await new Promise((resolve) => srv.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${srv.address().port}/`, stop: () => srv.close() };
}

// A large saved session: n small ConfigMap creates through the page's
// session, each saved to IndexedDB as it is made; then how long until all
// are durable, the bytes stored, and a reload: navigation to interactive
// (the store restored from its log, the controllers restarted), and
// whether the reloaded cluster answers as before.
export async function reloadFigures(browser, url, n) {
  const { page, context } = await openApp(browser, url);
  const made = await page.evaluate((n) => {
    const t0 = performance.now();
    for (let i = 0; i < n; i++) {
      const body = JSON.stringify({ metadata: { name: `cm-${i}` }, data: { k: 'v'.repeat(100) } });
      window.wasmBindings.kubesimRequest('POST', '/api/v1/namespaces/default/configmaps', body);
    }
    return { ms: performance.now() - t0, at: performance.now() };
  }, n);
  await page.waitForSelector('#save-state.saved', { timeout: 600000 });
  const durableAt = await page.evaluate(() => performance.now());
  const usage = await page.evaluate(async () => (await navigator.storage.estimate()).usage);
  const read = () => page.evaluate(() => window.wasmBindings.kubesimRequest('GET', '/api/v1/namespaces/default/configmaps?limit=1').body);
  const before = await read();
  await page.reload();
  await page.waitForSelector('body[data-ready="1"]', { timeout: 600000 });
  const ready = Number(await page.getAttribute('body', 'data-ready-at')) / 1000;
  const same = before === await read();
  await context.close();
  return { made: made.ms / 1000, durable: (durableAt - made.at) / 1000, usage, ready, same };
}
