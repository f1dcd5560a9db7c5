// Runs the wasm32-wasip1 build of the benchmark in headless Chromium, as
// run.mjs runs it in Node: the same module, its WASI calls answered in the
// page by @bjorn3/browser_wasi_shim (its clock is performance.now(), which
// Chromium coarsens to ~0.1 ms: runs are seconds long).
//   node benches/wasm/chromium.mjs FILE.wasm creates [N]
// (`./scripts/bench-wasm.sh chromium` builds the module and runs it.)
import { createServer } from 'node:http';
import { readFileSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../..');
const [file, ...args] = process.argv.slice(2);
const shim = join(ROOT, 'node_modules/@bjorn3/browser_wasi_shim/dist');
const page = `<!doctype html><script type="module">
import { WASI, File, OpenFile, ConsoleStdout } from './shim/index.js';
const out = [];
const fds = [new OpenFile(new File([])), ConsoleStdout.lineBuffered((l) => out.push(l)), ConsoleStdout.lineBuffered((l) => out.push(l))];
const wasi = new WASI(['kubesim-bench-wasm', ...${JSON.stringify(args)}], [], fds);
const module = await WebAssembly.compileStreaming(fetch('/bench.wasm'));
const instance = await WebAssembly.instantiate(module, { wasi_snapshot_preview1: wasi.wasiImport });
const code = wasi.start(instance);
window.done = { code, out };
</script>`;
const server = createServer((req, res) => {
  const send = (type, body) => res.writeHead(200, { 'Content-Type': type }).end(body);
  try {
    if (req.url === '/') return send('text/html', page);
    if (req.url === '/bench.wasm') return send('application/wasm', readFileSync(file));
    const name = req.url.startsWith('/shim/') && req.url.slice(6);
    if (name && /^[a-z_]+\.js$/.test(name)) return send('text/javascript', readFileSync(join(shim, name)));
  } catch (e) {
    return res.writeHead(500).end(String(e));
  }
  res.writeHead(404).end();
});
await new Promise((r) => server.listen(0, '127.0.0.1', r));
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
    '--disable-component-update', '--disable-sync', '--no-first-run'],
});
try {
  const tab = await browser.newPage();
  const errors = [];
  tab.on('pageerror', (e) => errors.push(String(e)));
  await tab.goto(`http://127.0.0.1:${server.address().port}/`);
  await tab.waitForFunction(() => window.done || null, null, { timeout: 600_000, polling: 200 }).catch(() => {});
  const done = await tab.evaluate(() => window.done);
  if (!done) throw new Error(`the module did not finish: ${errors.join('; ')}`);
  for (const line of done.out) console.log(`${line} (headless Chromium)`);
  process.exitCode = done.code;
} finally {
  await browser.close();
  server.close();
}
