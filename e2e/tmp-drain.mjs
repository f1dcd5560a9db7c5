import { startServer, launch, openApp } from './harness.mjs';
const server = await startServer();
const browser = await launch();
const { page, errors } = await openApp(browser, server.url + '?lesson=draining-a-node');
async function kubectl(line, file = '') {
  await page.fill('#kubectl-file', file);
  await page.fill('#kubectl-line', line);
  await page.click('#kubectl-run');
  await page.waitForTimeout(300);
}
async function passes(step) {
  await page.waitForSelector(`#lesson-pane[data-step="${step}"] #lesson-check.passed`, { timeout: 10000 });
  console.log('step', step, 'passed');
}
await page.waitForSelector('#lesson-pane[data-step="1"]');
await kubectl('drain worker-2');
await passes(1);
console.log(await page.textContent('#kubectl-output'));
await page.click('#lesson-next');
await kubectl('drain worker-2 --force');
await passes(2);
console.log(await page.textContent('#kubectl-output'));
await page.screenshot({ path: '/tmp/p44/drain2.png' });
await page.click('#lesson-next');
await page.click('#lesson-show-me');
await passes(3);
await page.screenshot({ path: '/tmp/p44/drain3.png' });
await page.click('#lesson-next');
await page.click('#lesson-show-me');
await passes(4);
console.log(await page.textContent('#kubectl-output'));
await page.screenshot({ path: '/tmp/p44/drain4.png' });
console.log('errors', errors);
await browser.close();
server.stop();
