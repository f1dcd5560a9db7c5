// Two builds of the page compared in one window (these machines are noisy:
// the same build's rollout varies by 40% between runs, so figures are
// compared as ratios of runs alternated in time).
//   node e2e/bench-ab.mjs DIST_A DIST_B [ROUNDS]
// Each round loads a fresh page of A, then of B, and reads its time to
// interactive; then runs the 1,000-replica rollout in a fresh page of each.
// With RELOAD_WRITES=N, each round also reloads a session of N writes in
// each (reload to interactive). Prints each one's best and median, and
// B's over A's.
import { startServer, launch, openApp, rolloutSeconds, reloadFigures } from './harness.mjs';

const [a, b, rounds = '5'] = process.argv.slice(2);
if (!a || !b) {
  console.error('usage: node e2e/bench-ab.mjs DIST_A DIST_B [ROUNDS]');
  process.exit(2);
}
const servers = [await startServer(a), await startServer(b)];
const browser = await launch();
const interactive = [[], []];
const runs = [[], []];
const reloads = [[], []];
const reloadWrites = Number(process.env.RELOAD_WRITES || 0);
for (let r = 0; r < Number(rounds); r++) {
  for (const i of [0, 1]) {
    const { page, context } = await openApp(browser, servers[i].url);
    // (A build older than data-interactive-at was interactive when ready.)
    const at = (await page.getAttribute('body', 'data-interactive-at')) ?? (await page.getAttribute('body', 'data-ready-at'));
    interactive[i].push(Number(at) / 1000);
    await context.close();
  }
  for (const i of [0, 1]) runs[i].push(await rolloutSeconds(browser, servers[i].url));
  if (reloadWrites) {
    for (const i of [0, 1]) {
      const f = await reloadFigures(browser, servers[i].url, reloadWrites);
      if (!f.same) throw new Error(`${[a, b][i]}: the reloaded cluster differs`);
      reloads[i].push(f.ready);
    }
  }
}
const median = (xs) => { const s = [...xs].sort((x, y) => x - y); return s[Math.floor(s.length / 2)]; };
const measures = [['interactive', interactive], ['rollout', runs]];
if (reloadWrites) measures.push([`reload of ${reloadWrites} writes`, reloads]);
for (const [what, xs] of measures) {
  for (const [i, dir] of [a, b].entries()) {
    console.log(`${what}: ${i ? 'B' : 'A'} ${dir}: best ${Math.min(...xs[i]).toFixed(2)} s, median ${median(xs[i]).toFixed(2)} s (${xs[i].map((x) => x.toFixed(2)).join(' ')})`);
  }
  console.log(`${what}: B/A medians ${(median(xs[1]) / median(xs[0])).toFixed(3)}, bests ${(Math.min(...xs[1]) / Math.min(...xs[0])).toFixed(3)}`);
}
await browser.close();
for (const s of servers) s.stop();
