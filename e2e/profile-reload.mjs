// Where a reload's time goes: a CPU profile (Chrome DevTools Protocol) of
// the reload of a session of RELOAD_WRITES writes (default 100,000), as
// functions' self and inclusive times. Wasm functions are named only in a
// build that keeps its symbols and skips wasm-opt:
//   sed -i 's/data-wasm-opt="z"/data-wasm-opt="0"/' index.html
//   CARGO_PROFILE_WEB_STRIP=false trunk build index.html --release
//   node e2e/profile-reload.mjs        (then put "z" back)
// FILTER=regex picks the inclusive lines shown; CALLERS=regex prints who
// calls the matching functions.
import { startServer, launch, openApp } from './harness.mjs';
const n = Number(process.env.RELOAD_WRITES || 100000);
const server = await startServer();
const browser = await launch();
const { page, context } = await openApp(browser, server.url);
await page.evaluate((n) => {
  for (let i = 0; i < n; i++) {
    const body = JSON.stringify({ metadata: { name: `cm-${i}` }, data: { k: 'v'.repeat(100) } });
    window.wasmBindings.kubesimRequest('POST', '/api/v1/namespaces/default/configmaps', body);
  }
}, n);
await page.waitForSelector('#save-state.saved', { timeout: 600000 });
const cdp = await context.newCDPSession(page);
await cdp.send('Profiler.enable');
await cdp.send('Profiler.setSamplingInterval', { interval: 200 });
await cdp.send('Profiler.start');
await page.reload();
await page.waitForSelector('body[data-ready="1"]', { timeout: 600000 });
const readyAt = Number(await page.getAttribute('body', 'data-ready-at'));
const { profile } = await cdp.send('Profiler.stop');
console.log('ready at', readyAt);
const byId = new Map(profile.nodes.map((x) => [x.id, x]));
const self = new Map();
const dt = profile.timeDeltas; let counts = new Map();
profile.samples.forEach((id, i) => counts.set(id, (counts.get(id) || 0) + (dt[i] || 0)));
for (const [id, us] of counts) { const f = byId.get(id).callFrame.functionName || '(anon)'; self.set(f, (self.get(f) || 0) + us); }
const top = [...self].sort((a, b) => b[1] - a[1]).slice(0, 40);
for (const [f, us] of top) console.log((us / 1000).toFixed(0).padStart(7), 'ms self ', f.slice(0, 150));
// inclusive
const parent = new Map(); for (const x of profile.nodes) for (const c of x.children || []) parent.set(c, x.id);
const incl = new Map();
for (const [id, us] of counts) { const seen = new Set(); let cur = id; while (cur !== undefined) { const f = byId.get(cur).callFrame.functionName || '(anon)'; if (!seen.has(f)) { seen.add(f); incl.set(f, (incl.get(f) || 0) + us); } cur = parent.get(cur); } }
const want = process.env.FILTER ? new RegExp(process.env.FILTER) : /kubesim|session|restore|controller|informer|Garbage|timeline|persist|durable|settle|relist|observe|attempt/i;
for (const [f, us] of [...incl].sort((a, b) => b[1] - a[1]).filter(([f]) => want.test(f)).slice(0, 50)) console.log((us / 1000).toFixed(0).padStart(7), 'ms incl ', f.slice(0, 150));
if (process.env.CALLERS) {
  const re = new RegExp(process.env.CALLERS); const by = new Map();
  for (const [id, us] of counts) { const f = byId.get(id).callFrame.functionName; if (!re.test(f)) continue; let cur = parent.get(id); const chain = []; for (let k = 0; k < 4 && cur !== undefined; k++) { chain.push((byId.get(cur).callFrame.functionName || '?').replace(/::h[0-9a-f]{16}$/, '').slice(-60)); cur = parent.get(cur); } const key = chain.join(' < '); by.set(key, (by.get(key) || 0) + us); }
  for (const [k, us] of [...by].sort((a, b) => b[1] - a[1]).slice(0, 12)) console.log((us / 1000).toFixed(0).padStart(7), 'ms', k);
}
await browser.close(); server.stop();
