// The functions the package's modules run until ready, for their split
// (docs/embedding.md, "Two parts"). Run by `scripts/split-profile.sh
// headless|element` on a package built with KUBESIM_SPLIT=instrument:
//   headless  a Simulator created with the starter cluster and one empty
//             (in Node);
//   element   every element of www/embed-example.html scrolled into view
//             until ready, then a second and a half, in windows 900, 1600
//             and 2400 pixels tall (in headless Chromium);
// prints the keys of the functions they ran, sorted, one a line.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join, dirname } from 'node:path';
import { launch, serveFiles } from './harness.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const which = process.argv[2];
let noted;
let slots;
if (which === 'headless') {
  slots = readFileSync(join(root, 'pkg/wasm/split-slots.txt'), 'utf8').split('\n');
  const { Simulator } = await import('../pkg/index.js');
  await Simulator.create({ seed: 7 });
  await Simulator.create({ seed: 7, scenario: 'empty' });
  noted = [...(globalThis.__kubesimSplitNoted || [])];
} else if (which === 'element') {
  slots = readFileSync(join(root, 'pkg/element/split-slots.txt'), 'utf8').split('\n');
  const server = await serveFiles();
  const browser = await launch();
  try {
    // A window that shows one element at a time, and taller ones that
    // start two, then all three, together (what runs differs: they share
    // the module's start-up and its scheduler).
    noted = [];
    // Twice each (VISITS=n: n times), in case timing decides a path.
    const visits = Number(process.env.VISITS || 2);
    for (const height of [900, 1600, 2400].flatMap((h) => Array(visits).fill(h))) {
      const page = await browser.newPage({ viewport: { width: 1200, height } });
      await page.goto(`${server.url}www/embed-example.html`);
      for (const el of await page.locator('kube-sim').all()) {
        await el.scrollIntoViewIfNeeded();
        await el.and(page.locator('[ready]')).waitFor({ timeout: 60000 });
      }
      await page.waitForTimeout(1500);
      noted.push(...(await page.evaluate(() => [...(globalThis.__kubesimSplitNoted || [])])));
      await page.close();
    }
  } finally {
    await browser.close();
    server.stop();
  }
} else {
  throw new Error('usage: node e2e/split-profile-pkg.mjs headless|element');
}
const keys = [...new Set(noted.map((slot) => slots[slot]))].filter(Boolean).sort();
console.log(`# The functions the package's ${which} module runs until ready: what its`);
console.log('# split keeps in the part loaded first. Made by scripts/split-profile.sh;');
console.log('# a function missing here still works (its first call loads the rest).');
for (const k of keys) console.log(k);
