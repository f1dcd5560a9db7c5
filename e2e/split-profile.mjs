// The functions a page runs until it is ready, for the split of its module
// (docs/browser.md, "The page's module in two parts"). Run by
// scripts/split-profile.sh on an instrumented build (UI=dir, made with
// KUBESIM_SPLIT=instrument): a fresh page until its starter cluster is
// built, then the same page reloaded (its session restored) until ready,
// twice;
// prints the keys of the functions either ran, sorted, one a line.
//   UI=/tmp/dist-instr node e2e/split-profile.mjs > web/split-keep.txt
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startServer, launch } from './harness.mjs';

const ui = process.env.UI;
if (!ui) throw new Error('UI=dir of an instrumented build');
const slots = readFileSync(join(ui, 'split-slots.txt'), 'utf8').split('\n');
const server = await startServer(ui);
const browser = await launch();
const ran = new Set();
let context, page;
try {
  // Twice (VISITS=n: n times), in case timing decides a path.
  for (const visit of Array.from({ length: Number(process.env.VISITS || 2) }, () => ['fresh', 'reload']).flat()) {
    if (visit === 'fresh') {
      context = await browser.newContext({ viewport: { width: 1400, height: 1600 } });
      page = await context.newPage();
    }
    if (visit === 'fresh') await page.goto(server.url); else await page.reload();
    await page.waitForSelector('body[data-ready="1"]', { timeout: 60000 });
    // What runs in the tasks right after (the first save, timers).
    await page.waitForTimeout(1500);
    const noted = await page.evaluate(() => [...(globalThis.__kubesimSplitNoted || [])]);
    for (const slot of noted) ran.add(slots[slot]);
    if (visit === 'reload') await context.close();
  }
} finally {
  await browser.close();
  server.stop();
}
const keys = [...ran].filter(Boolean).sort();
console.log('# The functions a page runs until ready (fresh, then reloaded): what the');
console.log('# split keeps in the module loaded first. Made by scripts/split-profile.sh;');
console.log('# a function missing here still works (its first call loads the rest).');
for (const k of keys) console.log(k);
