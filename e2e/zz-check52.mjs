import { startServer, launch, openApp } from './harness.mjs';
const server = await startServer();
const browser = await launch();
try {
  for (const step of [1, 2, 3]) {
    const { page, errors } = await openApp(browser, server.url + `?lesson=storage-classes&step=${step}`);
    for (let s = 0; s < step; s++) {
      await page.waitForSelector(`#lesson-pane[data-step="${s}"]`, { timeout: 10000 }).catch(() => {});
    }
    await page.click('#lesson-show-me');
    await page.waitForSelector(`#lesson-check.passed`, { timeout: 15000 });
    await page.waitForTimeout(500);
    await page.screenshot({ path: `/tmp/p52/lesson-step${step}.png` });
    console.log('step', step, 'passed; errors:', JSON.stringify(errors));
    await page.context().close();
  }
  const { page, errors } = await openApp(browser, server.url);
  for (const cmd of ['get sc', 'describe sc standard']) {
    await page.fill('#kubectl-line', cmd);
    await page.click('#kubectl-run');
    await page.waitForTimeout(700);
  }
  console.log(await page.textContent('#kubectl-output'));
  await page.screenshot({ path: '/tmp/p52/describe-sc.png' });
  console.log('errors:', JSON.stringify(errors));
} finally {
  await browser.close();
  server.stop();
}
