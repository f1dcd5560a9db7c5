// Types of the kubesim package (hand-written; the module's own generated
// declarations are in wasm/kubesim.d.ts).

/** A Kubernetes `Status`, as the API server answers a failure. */
export interface Status {
  kind: "Status";
  apiVersion: "v1";
  metadata: { resourceVersion?: string; continue?: string; remainingItemCount?: number };
  status: "Success" | "Failure";
  message?: string;
  reason?: string;
  details?: {
    name?: string;
    group?: string;
    kind?: string;
    uid?: string;
    causes?: { type?: string; message?: string; field?: string }[];
    retryAfterSeconds?: number;
  };
  code: number;
}

/** Any Kubernetes object or list, as JSON. */
export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata?: Record<string, unknown>;
  [field: string]: unknown;
}

/**
 * A body read by its content type: JSON as a value (a watch answered at
 * once: an array of events), `text/*` and YAML as a string, anything else
 * (protobuf) as bytes.
 */
export type Body = KubeObject | Status | WatchEvent[] | string | Uint8Array | null;

export interface Response<B = Body> {
  status: number;
  /** `status` is 2xx. */
  ok: boolean;
  /** Lower-cased names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  /** Names and values as the server wrote them, in order. */
  rawHeaders: [string, string][];
  body: B;
}

export interface RequestOptions {
  /** An object is sent as JSON; a string as JSON or YAML (by its first character); bytes as protobuf. */
  body?: KubeObject | string | Uint8Array;
  /** `Accept` defaults to application/json; `Content-Type` follows the body. */
  headers?: Record<string, string | string[]>;
}

export type WatchEventType = "ADDED" | "MODIFIED" | "DELETED" | "BOOKMARK" | "ERROR";

export interface WatchEvent<T = KubeObject> {
  type: WatchEventType;
  /** The object; for ERROR, a Status. */
  object: T | Status;
}

/** A watch being followed: `for await (const ev of watch) …`. */
export interface Watch extends AsyncIterableIterator<WatchEvent> {
  /** The answer's head (status and headers; for a refused watch, the Status as body). */
  response: Response;
  /** Events that arrived and were not read yet, without waiting. */
  take(): WatchEvent[];
  /** Stops following: the iterator ends. */
  close(): void;
}

/** "5m", "90s", "1h30m", "250ms", or milliseconds. */
export type Duration = string | number;

export interface CreateOptions {
  /** Seeds every uid, generated name and IP: the same seed and calls give the same cluster. Default 1. */
  seed?: number;
  /**
   * "starter" (default): three Ready nodes, CoreDNS, and a few running
   * workloads, as the page starts. "empty": only what the server makes
   * itself (no nodes, so pods stay Pending). Otherwise YAML or JSON
   * objects, created as `kubectl create -f -` would.
   */
  scenario?: "starter" | "empty" | string;
  /** How long history is kept before compaction (default 5m). */
  historyWindow?: Duration;
}

export interface KubectlResult {
  text: string;
  failed: boolean;
  /** After the first run of `edit`: the object's YAML, to change and pass back as `stdin` to the same command. */
  edit?: string;
}

export declare class Simulator {
  /** A new cluster (loads the WebAssembly module on first use). */
  static create(options?: CreateOptions): Promise<Simulator>;
  /** A cluster rebuilt from `export()` (or from the page's Export). */
  static import(json: string | object): Promise<Simulator>;

  /** True once the module aborted (a panic): create a new Simulator. */
  readonly aborted: boolean;
  /** Simulated time now. */
  readonly now: Date;
  /** The newest resourceVersion. */
  readonly resourceVersion: string;

  /** Serves one request; failures are answers with a Status body, never exceptions. */
  request(method: string, path: string, options?: RequestOptions): Response;
  /** Follows a watch; events arrive as the simulator is driven. */
  watch(path: string, options?: { headers?: Record<string, string> }): Watch;
  /** What the page's kubectl prints for a command line (`stdin` is what `-f -` reads). */
  kubectl(line: string, options?: { stdin?: string }): string;
  /** As `kubectl`, with whether it failed. */
  kubectlResult(line: string, options?: { stdin?: string }): KubectlResult;
  /** Moves simulated time forward; timers due in between fire. */
  advance(duration: Duration): Response;
  /** Compacts history up to the current revision. */
  compact(): Response;
  /** The session (seed and every write) as JSON text. */
  export(): string;
  /** Frees the cluster; its watches end. */
  free(): void;
  /** Panics inside the module, to see what a panic does (a 500 Status). */
  panicForTest(): Response<Status>;
}
