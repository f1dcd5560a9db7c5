// Types of the <kube-sim> element (kubesim/element, kube-sim.js).

/** The attributes `<kube-sim>` reads when it starts. */
export interface KubeSimAttributes {
  /** kubectl, lanes, inspector, owners, console, log, timeline, pager, explorer, fairness, metrics (comma-separated). */
  panels?: string;
  /** A lesson id, or a lesson file's URL. */
  lesson?: string;
  lang?: "en" | "zh" | string;
  seed?: string;
  /** Elements with the same name share one cluster. */
  cluster?: string;
  /** In CSS pixels (default 420). */
  height?: string;
  /** The URL of YAML objects created when the cluster is made. */
  scenario?: string;
}

/**
 * The element. It sets `ready` once mounted (and fires `kube-sim-ready`),
 * `failed` when it could not load, and `aborted` when the module stopped
 * after a panic.
 */
export declare class KubeSim extends HTMLElement {
  static observedAttributes: string[];
}

/** The element's WebAssembly module, loaded once for the page. */
export declare function loadModule(): Promise<{
  clusterRequest(
    cluster: string,
    method: string,
    target: string,
    body?: string,
    contentType?: string,
  ): { status: number; headers: [string, string][]; body: string };
  clusterKubectl(cluster: string, line: string, stdin: string): [string, boolean];
}>;

/** The app's style sheet rewritten for a shadow root. */
export declare function forShadow(css: string): string;

declare global {
  interface HTMLElementTagNameMap {
    "kube-sim": KubeSim;
  }
  interface HTMLElementEventMap {
    "kube-sim-ready": CustomEvent<void>;
  }
}
