// Figures for BENCHMARKS.md (not a test): the <kube-sim> element on
// www/embed-example.html in headless Chromium, fresh contexts, the builds
// given (directories with pkg/ and www/, built by ./scripts/build-pkg.sh)
// alternated run by run:
//   node e2e/bench-embed.mjs [RUNS] [DIR...]     (default: 5, this checkout)
// Prints, for each build, the median (and best) time from navigation until
// the first element is ready, and until its module's second part is in
// (when the module is split).
import { launch, serveFiles, ROOT } from './harness.mjs';

const [runs = '5', ...dirs] = process.argv.slice(2);
const builds = dirs.length ? dirs : [ROOT];
const servers = await Promise.all(builds.map((d) => serveFiles(d)));
const browser = await launch();
const figures = builds.map(() => ({ ready: [], second: [] }));
try {
  for (let r = 0; r < Number(runs); r++) {
    for (const [i, server] of servers.entries()) {
      const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
      const page = await context.newPage();
      await page.addInitScript(() => document.addEventListener('kube-sim-ready', () => { window.__readyAt ??= performance.now(); }));
      await page.goto(`${server.url}www/embed-example.html`);
      await page.waitForSelector('kube-sim#sim-watch[ready]', { timeout: 60000 });
      figures[i].ready.push(await page.evaluate(() => window.__readyAt));
      const second = await page.evaluate(async () => {
        const glue = await import('/pkg/element/kubesim_element.js');
        if (!glue.kubesimLoadDeferred) return null;
        await glue.kubesimLoadDeferred();
        return performance.getEntriesByName('kubesim:deferred')[0]?.startTime ?? null;
      });
      if (second !== null) figures[i].second.push(second);
      await context.close();
    }
  }
} finally {
  await browser.close();
  for (const s of servers) s.stop();
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
for (const [i, dir] of builds.entries()) {
  const { ready, second } = figures[i];
  const line = [`${dir}: first element ready, median ${median(ready).toFixed(0)} ms (best ${Math.min(...ready).toFixed(0)})`];
  if (second.length) line.push(`second part in, median ${median(second).toFixed(0)} ms`);
  console.log(line.join('; '));
}
