// The package's API in Node, against the built wasm (./scripts/build-pkg.sh
// first; scripts/test.sh does). Run: node --test pkg/test/
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, writeFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";

import { Simulator } from "../index.js";

const cm = (name, data = {}) => ({ apiVersion: "v1", kind: "ConfigMap", metadata: { name }, data });
const CMS = "/api/v1/namespaces/default/configmaps";

test("a request answers with status, headers and a body read by its content type", async () => {
  const sim = await Simulator.create({ seed: 3 });
  const created = sim.request("POST", CMS, { body: cm("a", { k: "v" }) });
  assert.equal(created.status, 201);
  assert.equal(created.ok, true);
  assert.equal(created.headers["content-type"], "application/json");
  assert.equal(created.body.data.k, "v");
  assert.equal(created.body.metadata.resourceVersion, sim.resourceVersion);

  // A failure is an answer too, with the Status as its body.
  const again = sim.request("POST", CMS, { body: cm("a") });
  assert.equal(again.status, 409);
  assert.equal(again.ok, false);
  assert.equal(again.body.kind, "Status");
  assert.equal(again.body.reason, "AlreadyExists");
  assert.equal(again.body.message, 'configmaps "a" already exists');

  // YAML in, Table out (the Accept header is the caller's).
  const yaml = sim.request("POST", CMS, { body: "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n" });
  assert.equal(yaml.status, 201, JSON.stringify(yaml.body));
  const table = sim.request("GET", CMS, { headers: { Accept: "application/json;as=Table;v=v1;g=meta.k8s.io" } });
  assert.equal(table.body.kind, "Table");
  assert.deepEqual(
    table.body.rows.map((r) => r.cells[0]),
    ["a", "b", "kube-root-ca.crt"],
  );

  // Protobuf comes back as bytes, with the k8s envelope.
  const proto = sim.request("GET", `${CMS}/a`, { headers: { Accept: "application/vnd.kubernetes.protobuf" } });
  assert.ok(proto.body instanceof Uint8Array);
  assert.deepEqual([...proto.body.slice(0, 4)], [0x6b, 0x38, 0x73, 0x00]);
  sim.free();
});

test("a watch is an async iterator fed as the simulator is driven, and closes", async () => {
  const sim = await Simulator.create({ scenario: "empty" });
  const list = sim.request("GET", CMS);
  const w = sim.watch(`${CMS}?resourceVersion=${list.body.metadata.resourceVersion}`);
  assert.equal(w.response.status, 200);
  const seen = [];
  const reading = (async () => {
    for await (const ev of w) {
      seen.push(`${ev.type} ${ev.object.metadata.name}`);
      if (seen.length === 4) break;
    }
  })();
  sim.request("POST", CMS, { body: cm("one") });
  sim.kubectl("label configmap one colour=blue");
  sim.request("DELETE", `${CMS}/one`);
  await reading;
  // (The controllers' first run, after the first write, publishes the
  // namespace's kube-root-ca.crt.)
  assert.deepEqual(seen, ["ADDED one", "ADDED kube-root-ca.crt", "MODIFIED one", "DELETED one"]);
  // `break` closed it: later writes reach no one, and next() is done.
  sim.request("POST", CMS, { body: cm("two") });
  assert.deepEqual(await w.next(), { value: undefined, done: true });
});

test("a refused watch gives one ERROR event with its Status; a compacted one ends with 410", async () => {
  const sim = await Simulator.create({ scenario: "empty" });
  const bad = sim.watch(`${CMS}?resourceVersion=abc`);
  assert.equal(bad.response.status, 400);
  const events = [];
  for await (const ev of bad) events.push(ev);
  assert.equal(events.length, 1);
  assert.equal(events[0].type, "ERROR");
  assert.equal(events[0].object.reason, "BadRequest");

  const rv = sim.request("POST", CMS, { body: cm("x") }).body.metadata.resourceVersion;
  sim.request("POST", CMS, { body: cm("y") });
  sim.compact();
  const old = sim.watch(`${CMS}?resourceVersion=${rv}`);
  const got = [];
  for await (const ev of old) got.push(ev);
  assert.equal(got.at(-1).type, "ERROR");
  assert.equal(got.at(-1).object.code, 410);
  assert.equal(got.at(-1).object.reason, "Expired");
});

test("kubectl prints what the page's kubectl prints, and the cluster lives as time passes", async () => {
  // The starter cluster has nodes; "empty" has none (pods would stay Pending).
  const sim = await Simulator.create({ seed: 11 });
  assert.equal(sim.kubectl("create deployment web --image=nginx --replicas=2"), "deployment.apps/web created\n");
  const pods = sim.kubectl("get pods -l app=web -o name").trim().split("\n");
  assert.equal(pods.length, 2);
  const r = sim.kubectlResult("get configmap nosuch");
  assert.equal(r.failed, true);
  assert.equal(r.text, 'Error from server (NotFound): configmaps "nosuch" not found\n');
  const applied = sim.kubectl("apply -f -", { stdin: "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cfg\ndata:\n  a: b\n" });
  assert.equal(applied, "configmap/cfg created\n");
  // edit: the first run hands out the object, the same command saves it.
  const opened = sim.kubectlResult("edit cm cfg");
  assert.match(opened.edit, /^apiVersion: v1\n/);
  assert.equal(sim.kubectlResult("get cm cfg").edit, undefined);
  const opened2 = sim.kubectlResult("edit cm cfg");
  const saved = sim.kubectl("edit cm cfg", { stdin: opened2.edit.replace("name: cfg", "name: cfg\n  labels: {a: b}") });
  assert.equal(saved, "configmap/cfg edited\n");
  assert.equal(sim.request("GET", "/api/v1/namespaces/default/configmaps/cfg").body.metadata.labels.a, "b");

  const before = sim.now.getTime();
  sim.advance("90s");
  assert.equal(sim.now.getTime() - before, 90_000);
  assert.match(sim.kubectl("get deploy web"), /web\s+2\/2\s+2\s+2\s+90s/);
});

test("the same seed and calls give the same cluster, byte for byte; export and import round-trip", async () => {
  const run = async () => {
    const sim = await Simulator.create({ seed: 42 });
    sim.kubectl("create deployment web --image=nginx --replicas=3");
    sim.advance("1m");
    sim.request("POST", CMS, { body: cm("c", { n: "1" }) });
    return sim;
  };
  const a = await run();
  const b = await run();
  const pods = "/api/v1/namespaces/default/pods";
  assert.deepEqual(a.request("GET", pods).body, b.request("GET", pods).body);
  assert.equal(a.export(), b.export());

  const c = await Simulator.import(a.export());
  assert.deepEqual(c.request("GET", pods).body, a.request("GET", pods).body);
  assert.equal(c.resourceVersion, a.resourceVersion);
  assert.equal(c.now.getTime(), a.now.getTime());
  await assert.rejects(Simulator.import("{}"), /kubesim: this file is not a kubesim session/);
});

test("a scenario of objects and a history window are the cluster's", async () => {
  const sim = await Simulator.create({
    scenario: "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: shop\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: menu\n  namespace: shop\n",
    historyWindow: "1m",
  });
  assert.equal(sim.request("GET", "/api/v1/namespaces/shop/configmaps/menu").status, 200);
  assert.equal(sim.request("GET", "/api/v1/namespaces/default/pods").body.items.length, 0);
  const rv = sim.resourceVersion;
  sim.request("POST", CMS, { body: cm("later") });
  sim.advance("2m");
  sim.request("POST", CMS, { body: cm("after-window") });
  const w = sim.watch(`${CMS}?resourceVersion=${rv}`);
  assert.equal(w.take().at(-1)?.object?.code, 410, "history older than the window is gone");
  await assert.rejects(Simulator.create({ scenario: "kind: Nope\napiVersion: v1\nmetadata:\n  name: x\n" }), /did not load/);
  await assert.rejects(Simulator.create({ historyWindow: "soon" }), /not a duration/);
});

test("a panic is a 500 Status; that simulator says it aborted, and a new one works", async () => {
  const sim = await Simulator.create({ scenario: "empty" });
  const other = await Simulator.create({ scenario: "empty" });
  const r = sim.panicForTest();
  assert.equal(r.status, 500);
  assert.equal(r.body.reason, "InternalError");
  assert.match(r.body.message, /a panic asked for by panicForTest/);
  assert.equal(sim.aborted, true);
  assert.equal(other.aborted, true, "they shared the module that aborted");
  assert.equal(sim.request("GET", CMS).status, 503);
  const fresh = await Simulator.create({ scenario: "empty" });
  assert.equal(fresh.aborted, false);
  assert.equal(fresh.request("POST", CMS, { body: cm("ok") }).status, 201);
});

// The module in two parts (docs/embedding.md, "Two parts"): each case loads
// its own instance of the glue (a query makes it a module of its own).
async function freshModule(tag) {
  const glue = await import(`../wasm/kubesim.js?split=${tag}`);
  await glue.default({ module_or_path: readFileSync(new URL("../wasm/kubesim_bg.wasm", import.meta.url)) });
  return glue;
}
const pods = (core) => core.kubectl("get pods -A", "").text;

test("a new simulator runs on the module's first part; the second comes in the background", async () => {
  const glue = await freshModule("background");
  const core = new glue.Core(7, undefined, true);
  // Nothing the starter cluster ran is in the second part: if this fails,
  // remake embed/split-keep.txt (./scripts/split-profile.sh headless).
  assert.equal(glue.kubesimDeferredState(), "absent");
  await glue.kubesimLoadDeferred();
  assert.equal(glue.kubesimDeferredState(), "background");
  assert.match(pods(core), /^NAMESPACE\s+NAME\s+READY/);
});

test("a function of the second part called before it came in reads it at once", async () => {
  const glue = await freshModule("sync");
  const core = new glue.Core(7, undefined, true);
  const printed = pods(core);
  assert.equal(glue.kubesimDeferredState(), "sync");
  assert.match(printed, /^NAMESPACE\s+NAME\s+READY/);
  await glue.kubesimLoadDeferred();
  assert.equal(glue.kubesimDeferredState(), "sync");
});

test("npm pack gives a tarball that installs into an empty project and runs", { timeout: 120_000 }, () => {
  const pkg = join(dirname(fileURLToPath(import.meta.url)), "..");
  const dir = mkdtempSync(join(tmpdir(), "kubesim-pkg-"));
  try {
    execFileSync("npm", ["pack", "--pack-destination", dir], { cwd: pkg, stdio: "pipe" });
    const tgz = readdirSync(dir).find((f) => f.endsWith(".tgz"));
    assert.ok(tgz, "npm pack wrote a tarball");
    const project = join(dir, "project");
    execFileSync("mkdir", ["-p", project]);
    writeFileSync(join(project, "package.json"), JSON.stringify({ name: "empty", version: "1.0.0", type: "module" }));
    execFileSync("npm", ["install", "--offline", "--no-audit", "--no-fund", join(dir, tgz)], { cwd: project, stdio: "pipe" });
    writeFileSync(
      join(project, "main.js"),
      'import { Simulator } from "kubesim";\nconst sim = await Simulator.create({ scenario: "empty" });\nprocess.stdout.write(sim.kubectl("create configmap hi --from-literal=a=b"));\n',
    );
    const out = execFileSync("node", ["main.js"], { cwd: project, encoding: "utf8" });
    assert.equal(out, "configmap/hi created\n");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
