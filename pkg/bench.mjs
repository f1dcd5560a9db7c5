// Figures for BENCHMARKS.md (not a test): node pkg/bench.mjs
// Loading the module, creating a simulator (starter and empty), and
// ConfigMap creates through the package's request() in this Node.
import { Simulator } from "./index.js";

const ms = (t0) => (performance.now() - t0).toFixed(0);
let t0 = performance.now();
await Simulator.create({ scenario: "empty" });
console.log(`first create (loads and compiles the module), empty: ${ms(t0)} ms`);
for (const scenario of ["empty", "starter"]) {
  t0 = performance.now();
  await Simulator.create({ scenario });
  console.log(`create, ${scenario}: ${ms(t0)} ms`);
}
const sim = await Simulator.create({ scenario: "empty" });
const n = 2000;
t0 = performance.now();
for (let i = 0; i < n; i++) {
  const r = sim.request("POST", "/api/v1/namespaces/default/configmaps", {
    body: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: `cm-${i}` }, data: { k: "v".repeat(800) } },
  });
  if (r.status !== 201) throw new Error(JSON.stringify(r.body));
}
const s = (performance.now() - t0) / 1000;
console.log(`${n} ConfigMap creates (~1 KB): ${(n / s).toFixed(0)} /s`);
t0 = performance.now();
const list = sim.request("GET", "/api/v1/namespaces/default/configmaps?limit=500");
console.log(`list, limit=500 of ${n}: ${ms(t0)} ms (${list.body.items.length} items)`);
