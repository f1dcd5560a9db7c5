// Browser app benchmarks (not tests: figures go to BENCHMARKS.md).
//   node e2e/bench-ui.mjs        (after scripts/build-web.sh and cargo build --bin kubesim)
//   node e2e/bench-ui.mjs rollout (only the named parts: interactive, lane,
//                                  scroll, rollout, jump, reload; the bundle always)
// Prints: bundle size (brotli, quality 11: what a page loads first, and the
// module's second part), time to interactive, a watch
// lane under 1,000 events/s, and scrolling lists of 10,000 rows.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { brotliCompressSync, constants } from 'node:zlib';
import { ROOT, startServer, launch, openApp, rolloutSeconds, reloadFigures } from './harness.mjs';

const dist = join(ROOT, 'dist');
// What a page loads first, and the module's second part (`*_deferred.wasm`,
// fetched once the page is ready: docs/browser.md).
const sizes = { first: [0, 0], deferred: [0, 0] };
for (const f of readdirSync(dist)) {
  if (!/\.(wasm|js|css|html)$/.test(f)) continue;
  const b = readFileSync(join(dist, f));
  const part = sizes[/_deferred\.wasm$/.test(f) ? 'deferred' : 'first'];
  part[0] += b.length;
  part[1] += brotliCompressSync(b, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length;
}
const kb = ([raw, br]) => `${(raw / 1024).toFixed(0)} KB raw, ${(br / 1024).toFixed(0)} KB brotli`;
console.log(`bundle: loaded first ${kb(sizes.first)} (goal <= 600 KB); second part ${kb(sizes.deferred)}; `
  + `together ${((sizes.first[1] + sizes.deferred[1]) / 1024).toFixed(0)} KB brotli`);

const server = await startServer();
const browser = await launch();
const parts = process.argv.slice(2);
const want = (part) => parts.length === 0 || parts.includes(part);
const pct = (xs, p) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor(p * s.length))]; };

// Time to interactive: navigation start to the app's first render with the
// tick loop running (body[data-interactive-at]), fresh storage each time;
// then when the starter cluster, built after it in short slices, is done
// (body[data-ready-at]), and the longest task in between (how long a
// click may wait meanwhile).
if (want('interactive')) {
const ttis = []; const built = []; const longest = [];
for (let i = 0; i < 7; i++) {
  const context = await browser.newContext({ viewport: { width: 1400, height: 1600 } });
  const page = await context.newPage();
  await page.addInitScript(() => {
    window.__tasks = [];
    new PerformanceObserver((l) => l.getEntries().forEach((e) => window.__tasks.push([e.startTime, e.duration])))
      .observe({ type: 'longtask', buffered: true });
  });
  await page.goto(server.url);
  await page.waitForSelector('body[data-ready="1"]', { timeout: 20000 });
  const at = Number(await page.getAttribute('body', 'data-interactive-at'));
  ttis.push(at);
  built.push(Number(await page.getAttribute('body', 'data-ready-at')));
  const tasks = await page.evaluate(() => window.__tasks);
  longest.push(Math.max(0, ...tasks.filter(([start]) => start >= at).map(([, d]) => d)));
  await context.close();
}
// The first run pays the compile of the wasm module; report the median.
console.log(`interactive: median ${pct(ttis, 0.5).toFixed(0)} ms, max ${Math.max(...ttis).toFixed(0)} ms over ${ttis.length} loads (goal <= 500 ms); ` +
  `starter cluster built: median ${pct(built, 0.5).toFixed(0)} ms; longest task after interactive: median ${pct(longest, 0.5).toFixed(0)} ms, max ${Math.max(...longest).toFixed(0)} ms`);
}

// Frame sampler: rAF intervals and long tasks while `work` runs in the page.
async function frames(page, seconds, work) {
  return page.evaluate(async ({ seconds, work }) => {
    const gaps = []; let long = 0; let last = performance.now();
    const obs = new PerformanceObserver((l) => { long += l.getEntries().length; });
    try { obs.observe({ entryTypes: ['longtask'] }); } catch (e) {}
    const stopAt = last + seconds * 1000;
    const fn = new Function('i', work);
    let i = 0;
    await new Promise((resolve) => {
      const step = (t) => { gaps.push(t - last); last = t; fn(i++); if (t < stopAt) requestAnimationFrame(step); else resolve(); };
      requestAnimationFrame(step);
    });
    obs.disconnect();
    return { gaps, long };
  }, { seconds, work });
}

// A watch lane under 1,000 events/s for 5 s.
if (want('lane')) {
  const { page, context } = await openApp(browser, server.url);
  await page.uncheck('#lane-list-first');
  await page.click('#lane-open');
  await page.waitForSelector('#lane-1-state:text("watching")');
  await page.evaluate(() => {
    let n = 0;
    window.__writer = setInterval(() => {
      for (let k = 0; k < 12; k++) {
        window.wasmBindings.kubesimRequest('POST', '/api/v1/namespaces/default/configmaps', JSON.stringify({ metadata: { name: 'load-' + (n++) } }));
      }
    }, 10);
  });
  const { gaps, long } = await frames(page, 5, '');
  await page.evaluate(() => clearInterval(window.__writer));
  await page.waitForTimeout(300);
  const list = await page.evaluate(() => window.wasmBindings.kubesimRequest('GET', '/api/v1/namespaces/default/configmaps?limit=1').body);
  const remaining = JSON.parse(list).metadata.remainingItemCount + 1;
  const laneEvents = await page.evaluate(() => document.querySelector('#lane-1-events > div').style.height);
  const rows = await page.locator('#lane-1-events .vrow').count();
  console.log(`lane at ~1000 events/s: ${remaining} objects written in 5 s (${(remaining / 5).toFixed(0)}/s); frame interval p50 ${pct(gaps, 0.5).toFixed(1)} ms, p95 ${pct(gaps, 0.95).toFixed(1)} ms, max ${Math.max(...gaps).toFixed(1)} ms; long tasks ${long}; lane height ${laneEvents} (20 px a row), DOM rows in the lane ${rows}`);
  await context.close();
}

// 10,000 rows: the request log and a lane, scrolled a screen per frame.
if (want('scroll')) {
  const { page, context } = await openApp(browser, server.url);
  await page.evaluate(() => {
    for (let n = 0; n < 10000; n++) {
      window.wasmBindings.kubesimRequest('POST', '/api/v1/namespaces/default/configmaps', JSON.stringify({ metadata: { name: 'row-' + n } }));
    }
  });
  await page.uncheck('#lane-list-first');
  await page.click('#lane-open');
  await page.waitForSelector('#lane-1-state:text("watching")');
  await page.waitForTimeout(500);
  for (const list of ['#log-list', '#lane-1-events']) {
    const { gaps, long } = await frames(page, 3, `const el = document.querySelector('${list}'); el.scrollTop = (i * 220) % (el.scrollHeight - 220); el.dispatchEvent(new Event('scroll'));`);
    const rows = await page.locator(`${list} .vrow`).count();
    console.log(`scrolling ${list} (10k+ rows): frame interval p50 ${pct(gaps, 0.5).toFixed(1)} ms, p95 ${pct(gaps, 0.95).toFixed(1)} ms, max ${Math.max(...gaps).toFixed(1)} ms; long tasks ${long}; DOM rows ${rows}`);
  }
  await context.close();
}

// A 1,000-replica Deployment from its create to every pod Ready, every
// controller running in the page (ten nodes with room for 110 pods each,
// as the native benchmark's): the core time of the one POST, which
// settles the controllers before it answers.
// Three times, each in a fresh page (this machine's timings vary by ±20%):
// the best and the median.
if (want('rollout')) {
  const runs = [];
  for (let run = 0; run < 3; run++) {
    runs.push(await rolloutSeconds(browser, server.url));
  }
  runs.sort((a, b) => a - b);
  console.log(`rollout: 1,000 replicas Ready in ${runs[0].toFixed(2)} s of page time, best of 3 (median ${runs[1].toFixed(2)} s; goal <= 2 s)`);
}

// The clock bar's +5 min, which walks the controllers through every time
// one waits for on the way (Controllers::walk): in the starter cluster
// alone, then with a CronJob every minute and a container that ends after
// 5 s (restarted at once, then on its back-off), each in a fresh page; the
// click's own time (the walk and the page's update), median of 3.
if (want('jump')) {
  const click = async (busy) => {
    const { context, page } = await openApp(browser, server.url);
    for (const cmd of busy ? ["create cronjob tick --image=busybox --schedule='* * * * *' -- echo tick",
      'run nap --image=busybox -- sleep 5'] : []) {
      await page.fill('#kubectl-line', cmd);
      await page.press('#kubectl-line', 'Enter');
      await page.waitForTimeout(300);
    }
    const ms = await page.evaluate(() => {
      const b = [...document.querySelectorAll('button')].find((b) => b.textContent.trim() === '+5 min');
      const t = performance.now();
      b.click();
      return performance.now() - t;
    });
    await context.close();
    return ms;
  };
  const idle = []; const busy = [];
  for (let i = 0; i < 3; i++) { idle.push(await click(false)); busy.push(await click(true)); }
  console.log(`jump: +5 min in the starter cluster ${pct(idle, 0.5).toFixed(0)} ms; with a CronJob every minute and a ` +
    `crash-looping pod ${pct(busy, 0.5).toFixed(0)} ms (median of 3)`);
}

// A large saved session reloaded (RELOAD_WRITES writes, default 10,000;
// harness.mjs's reloadFigures).
if (want('reload')) {
  const n = Number(process.env.RELOAD_WRITES || 10000);
  const f = await reloadFigures(browser, server.url, n);
  console.log(`reload: ${n} writes made in ${f.made.toFixed(1)} s, all durable ${f.durable.toFixed(1)} s after the last; ` +
    `${(f.usage / 1048576).toFixed(1)} MiB stored; reload to interactive ${f.ready.toFixed(2)} s ` +
    `(goal <= 2 s at 100,000); same cluster: ${f.same}`);
}

await browser.close();
server.stop();
