// Where a fresh page's time goes before it is interactive: for RUNS fresh
// pages (default 3), the moment it was interactive, when its files
// arrived, and the page's own marks (`kubesim:start` when the module runs,
// `kubesim:opened` when the session's database is open,
// `kubesim:session` when the session is made or restored,
// `kubesim:booted`, `kubesim:interactive` when first shown,
// `kubesim:ready` when a new session's starter cluster is built too), all
// in ms since navigation.
// PROFILE=1 adds a CPU profile of the last page (self and inclusive
// times; FILTER=regex picks the inclusive lines). Wasm functions are named
// only in a build that keeps its symbols and skips wasm-opt (see
// e2e/profile-reload.mjs), served from UI=dir. JSFLAGS passes V8 flags.
//   node e2e/profile-load.mjs
import { chromium } from 'playwright-core';
import { startServer, launch } from './harness.mjs';

const server = await startServer(process.env.UI);
const browser = process.env.JSFLAGS
  ? await chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', '--no-first-run', `--js-flags=${process.env.JSFLAGS}`],
  })
  : await launch();
const runs = Number(process.env.RUNS || 3);
const profiling = process.env.PROFILE === '1';
for (let r = 0; r < runs; r++) {
  const context = await browser.newContext({ viewport: { width: 1400, height: 1600 } });
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  if (profiling) {
    await cdp.send('Profiler.enable');
    await cdp.send('Profiler.setSamplingInterval', { interval: 100 });
    await cdp.send('Profiler.start');
  }
  await page.goto(server.url);
  await page.waitForSelector('body[data-ready="1"]', { timeout: 20000 });
  const ready = Number(await page.getAttribute('body', 'data-interactive-at'));
  const t = await page.evaluate(() => ({
    files: performance.getEntriesByType('resource')
      .map((e) => `${e.name.split('/').pop().replace(/-[0-9a-f]{16}/, '')} ${Math.round(e.responseEnd)}`),
    marks: performance.getEntriesByType('mark').map((m) => `${m.name.replace('kubesim:', '')} ${Math.round(m.startTime)}`),
  }));
  console.log(`interactive ${ready} | arrived: ${t.files.join(', ')} | marks: ${t.marks.join(', ')}`);
  if (profiling && r === runs - 1) {
    const { profile } = await cdp.send('Profiler.stop');
    const byId = new Map(profile.nodes.map((x) => [x.id, x]));
    const counts = new Map();
    profile.samples.forEach((id, i) => counts.set(id, (counts.get(id) || 0) + (profile.timeDeltas[i] || 0)));
    const name = (id) => byId.get(id).callFrame.functionName || '(anon)';
    const self = new Map();
    for (const [id, us] of counts) self.set(name(id), (self.get(name(id)) || 0) + us);
    for (const [f, us] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 30)) {
      console.log((us / 1000).toFixed(1).padStart(7), 'ms self ', f.slice(0, 140));
    }
    const parent = new Map();
    for (const x of profile.nodes) for (const c of x.children || []) parent.set(c, x.id);
    const incl = new Map();
    for (const [id, us] of counts) {
      const seen = new Set();
      for (let cur = id; cur !== undefined; cur = parent.get(cur)) {
        const f = name(cur);
        if (!seen.has(f)) { seen.add(f); incl.set(f, (incl.get(f) || 0) + us); }
      }
    }
    const want = new RegExp(process.env.FILTER || 'kubesim|session|Server|controller|starter|boot|persist|Registry|schema');
    for (const [f, us] of [...incl].sort((a, b) => b[1] - a[1]).filter(([f]) => want.test(f)).slice(0, 60)) {
      console.log((us / 1000).toFixed(1).padStart(7), 'ms incl ', f.slice(0, 140));
    }
  }
  await context.close();
}
await browser.close();
server.stop();
