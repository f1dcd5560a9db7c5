// Type-checked (not run) by scripts/test.sh: `tsc -p pkg/test`. It uses
// the package as its README does, so the declarations stay true to it.
import { Simulator, type Status, type WatchEvent, type KubeObject } from "../index.js";

export async function example(): Promise<string> {
  const sim = await Simulator.create({ seed: 7, scenario: "starter", historyWindow: "5m" });
  const r = sim.request("POST", "/api/v1/namespaces/default/configmaps", {
    body: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "a" } },
    headers: { "Field-Manager": "docs" },
  });
  if (!r.ok) {
    const s = r.body as Status;
    return `${s.code} ${s.reason}: ${s.message}`;
  }
  const w = sim.watch(`/api/v1/namespaces/default/configmaps?resourceVersion=${sim.resourceVersion}`);
  const seen: WatchEvent[] = w.take();
  sim.advance(90_000);
  sim.advance("1m");
  sim.compact();
  for await (const ev of w) {
    seen.push(ev);
    const o = ev.object as KubeObject;
    if (o.kind === "ConfigMap") break;
  }
  w.close();
  const copy = await Simulator.import(sim.export());
  const printed: string = copy.kubectl("apply -f -", { stdin: "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n" });
  const { failed } = copy.kubectlResult("get cm b");
  copy.free();
  return `${printed} ${failed} ${sim.now.toISOString()} ${sim.aborted} ${seen.length}`;
}

// The element, as a page's TypeScript would use it.
import { KubeSim, loadModule } from "../kube-sim.js";

export async function element(): Promise<boolean> {
  const el = document.createElement("kube-sim");
  el.setAttribute("panels", "kubectl,lanes");
  el.addEventListener("kube-sim-ready", () => el.setAttribute("data-seen", ""));
  document.body.append(el);
  const glue = await loadModule();
  const [text, failed] = glue.clusterKubectl("docs", "get pods", "");
  const r = glue.clusterRequest("docs", "GET", "/api/v1/namespaces");
  return el instanceof KubeSim && !failed && text.length > 0 && r.status === 200;
}
