// Time from a click in the lesson picker to the lesson's pane, for a
// small lesson and for chunked-lists (1,253 pods created through the
// page's session as it opens). Run after trunk build and cargo build:
//   node e2e/bench-lessons.mjs
import { startServer, launch } from './harness.mjs';
const srv = await startServer();
const browser = await launch();
const out = {};
try {
  for (const id of ['watch-from-rv', 'chunked-lists', 'watch-from-rv', 'chunked-lists', 'watch-from-rv', 'chunked-lists']) {
    const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
    const page = await context.newPage();
    await page.goto(srv.url);
    await page.waitForSelector('body[data-ready="1"]');
    await page.click('#lessons-button');
    await page.waitForSelector(`.lesson-open[data-lesson="${id}"]`);
    const t0 = await page.evaluate(() => performance.now());
    await page.click(`.lesson-open[data-lesson="${id}"]`);
    await page.waitForSelector(`#lesson-pane[data-lesson="${id}"]`, { timeout: 60000 });
    const t1 = await page.evaluate(() => performance.now());
    (out[id] ??= []).push(Math.round(t1 - t0));
    await context.close();
  }
  console.log(JSON.stringify(out));
} finally { await browser.close(); srv.stop(); }
