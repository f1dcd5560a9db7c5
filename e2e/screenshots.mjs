// Screenshots of the page for docs/screenshots/ (light and dark, 1440 and
// 1024 px wide, and the projector's focus layout at 18 px), each after the
// same few steps: a Deployment created, a watch lane on pods, an object
// open in the inspector (once more in Chinese); and a lesson in progress. Run after `trunk build index.html --release` and
// `cargo build --bin kubesim`:  node e2e/screenshots.mjs
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, startServer, launch } from './harness.mjs';

const OUT = join(ROOT, 'docs/screenshots');
mkdirSync(OUT, { recursive: true });
const server = await startServer();
const browser = await launch();
const shots = [
  ['light-1440.png', 1440, 900, 'light', '13', 'all'],
  ['dark-1440.png', 1440, 900, 'dark', '13', 'all'],
  ['light-1024.png', 1024, 768, 'light', '13', 'all'],
  ['dark-1024.png', 1024, 768, 'dark', '13', 'all'],
  ['projector-focus-18px.png', 1024, 768, 'light', '18', 'focus'],
  ['zh-1440.png', 1440, 900, 'light', '13', 'all', '?lang=zh'],
];
try {
  for (const [file, width, height, theme, text, layout, query = ''] of shots) {
    const context = await browser.newContext({ viewport: { width, height } });
    const page = await context.newPage();
    await page.goto(server.url + query);
    await page.waitForSelector('body[data-ready="1"]');
    await page.selectOption('#view-theme', theme);
    await page.selectOption('#view-text', text);
    await page.selectOption('#view-layout', layout);
    if (layout === 'all') await page.click('#welcome .hide');
    await page.fill('#lane-path', '/api/v1/namespaces/default/pods');
    await page.click('#lane-open');
    await page.fill('#kubectl-line', 'kubectl create deployment web --image=nginx --replicas=2');
    await page.click('#kubectl-run');
    await page.waitForFunction(() => document.querySelectorAll('#lane-1-events .event').length >= 8);
    await page.locator('#lane-1-events .event.added').first().click();
    await page.waitForFunction(() => document.querySelector('#inspector-body')?.textContent.includes('kind: Pod'));
    await page.screenshot({ path: join(OUT, file) });
    console.log(`docs/screenshots/${file}`);
    await context.close();
  }
  // A lesson in progress: the chunked list's second step, answered from
  // the console, with only the lesson's panels shown; then the same in
  // presenter mode.
  for (const [file, query] of [['lesson-chunked-lists.png', ''], ['lesson-presenter.png', '&present=1']]) {
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    const page = await context.newPage();
    await page.goto(server.url + '?lesson=chunked-lists&step=2&seed=1' + query);
    await page.waitForSelector('#lesson-pane[data-step="2"]', { timeout: 30000 });
    await page.check('#lesson-focus');
    const tried = await page.locator('.lesson-try code').last().textContent();
    const token = new URL(tried.replace(/^GET /, 'http://x')).searchParams.get('continue');
    await page.fill('#console-path', '/api/v1/namespaces/test/pods');
    await page.fill('#q-limit', '500');
    await page.fill('#q-continue', token);
    await page.click('#console-send');
    await page.waitForSelector('#lesson-check.passed');
    await page.screenshot({ path: join(OUT, file) });
    console.log(`docs/screenshots/${file}`);
    await context.close();
  }
} finally {
  await browser.close();
  server.stop();
}
