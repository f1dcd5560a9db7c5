// kubesim headless: the Kubernetes API, simulated, for JavaScript.
//
//   import { Simulator } from "kubesim";
//   const sim = await Simulator.create({ seed: 7 });
//   const r = sim.request("GET", "/api/v1/namespaces/default/configmaps");
//   r.status; r.headers["content-type"]; r.body.items
//
// One WebAssembly module serves every Simulator on the page (or in the Node
// process); each Simulator is a cluster of its own. Nothing here knows the
// API: it moves requests in and answers out, and reads bodies by their
// content type.

const wasmUrl = new URL("./wasm/kubesim_bg.wasm", import.meta.url);
const isNode = typeof process !== "undefined" && !!process.versions?.node;

// The loaded module, and how many times it was loaded: a module that
// aborted (a panic, on wasm32) is replaced by a fresh instance, imported
// under another URL so that its glue keeps its own state.
let current = null;
let generation = 0;

async function wasmBytes() {
  if (isNode) {
    const { readFile } = await import("node:fs/promises");
    return readFile(wasmUrl);
  }
  return fetch(wasmUrl);
}

async function load() {
  if (current && !current.aborted) return current;
  generation += 1;
  const glueUrl = new URL(`./wasm/kubesim.js${generation > 1 ? `?instance=${generation}` : ""}`, import.meta.url);
  const glue = await import(glueUrl.href);
  await glue.default({ module_or_path: await wasmBytes() });
  // The rest of the module, fetched while the first simulator is built
  // (docs/embedding.md, "Two parts").
  glue.kubesimLoadDeferred?.();
  current = { glue, aborted: false, generation };
  return current;
}

const utf8 = new TextEncoder();
const text = new TextDecoder();

/** Reads a body the way its Content-Type says: JSON, text or bytes. */
function readBody(contentType, bytes) {
  const ct = (contentType || "").toLowerCase();
  if (bytes.length === 0) return ct.includes("json") ? null : "";
  if (ct.startsWith("application/json") || /^application\/[^;]*\+json/.test(ct)) {
    const s = text.decode(bytes);
    try {
      return JSON.parse(s);
    } catch {
      // A watch answered at once: newline-delimited events.
      return s
        .split("\n")
        .filter((l) => l.trim() !== "")
        .map((l) => JSON.parse(l));
    }
  }
  if (ct.startsWith("text/") || ct.includes("yaml") || ct === "") return text.decode(bytes);
  return bytes;
}

function statusOf(code, reason, message) {
  return { kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message, reason, code };
}

/** An answer of the simulator as the package hands it out. */
function response(answer) {
  const pairs = [];
  for (let i = 0; i + 1 < answer.headers.length; i += 2) pairs.push([answer.headers[i], answer.headers[i + 1]]);
  const headers = {};
  for (const [k, v] of pairs) {
    const key = k.toLowerCase();
    headers[key] = key in headers ? `${headers[key]}, ${v}` : v;
  }
  const body = readBody(headers["content-type"], answer.body);
  return { status: answer.status, ok: answer.status >= 200 && answer.status < 300, headers, rawHeaders: pairs, body };
}

function encodeBody(body) {
  if (body === undefined || body === null) return { bytes: undefined, type: undefined };
  if (body instanceof Uint8Array) return { bytes: body, type: "application/vnd.kubernetes.protobuf" };
  if (typeof body === "string") {
    const t = body.trimStart();
    return { bytes: utf8.encode(body), type: t.startsWith("{") || t.startsWith("[") ? "application/json" : "application/yaml" };
  }
  return { bytes: utf8.encode(JSON.stringify(body)), type: "application/json" };
}

export class Simulator {
  #core;
  #module;
  #watches = new Set();

  constructor(module, core) {
    this.#module = module;
    this.#core = core;
  }

  /**
   * A new cluster. Options: `seed` (number, default 1), `scenario`
   * ("starter", the page's starter cluster, the default; "empty"; or YAML
   * or JSON objects to create, as `kubectl create -f -` would),
   * `historyWindow` (how long history is kept: "5m", "90s" or
   * milliseconds).
   */
  static async create(options = {}) {
    const module = await load();
    const { seed = 1, scenario = "starter", historyWindow } = options;
    const windowMs = historyWindow === undefined ? undefined : durationMs(historyWindow);
    const objects = scenario !== "starter" && scenario !== "empty";
    const core = new module.glue.Core(Number(seed), windowMs, scenario === "starter");
    const sim = new Simulator(module, core);
    if (objects) {
      const printed = sim.kubectlResult("create -f -", { stdin: String(scenario) });
      if (printed.failed) throw new Error(`kubesim: the scenario did not load:\n${printed.text}`);
    }
    return sim;
  }

  /** A cluster rebuilt from `export()` (or from the page's "Export"). */
  static async import(json) {
    const module = await load();
    const s = typeof json === "string" ? json : JSON.stringify(json);
    try {
      return new Simulator(module, module.glue.Core.import(s));
    } catch (e) {
      throw new Error(`kubesim: ${e instanceof Error ? e.message : String(e)}`);
    }
  }

  /** True once the module aborted under this simulator (create another). */
  get aborted() {
    return this.#module.aborted;
  }

  /**
   * Serves one request: `{status, ok, headers, rawHeaders, body}`, the body
   * read by its content type (JSON as a value, text as a string, protobuf
   * as bytes). Failures are answers too: `body` is the Status. A watch
   * request answers with the events it had at once (use `watch` to
   * follow one).
   */
  request(method, path, { body, headers = {} } = {}) {
    const answer = this.#call((core) => {
      const { bytes, type } = encodeBody(body);
      const flat = [];
      let accept = false;
      let ctype = false;
      for (const [k, v] of Object.entries(headers)) {
        for (const value of Array.isArray(v) ? v : [v]) flat.push(k, String(value));
        accept ||= k.toLowerCase() === "accept";
        ctype ||= k.toLowerCase() === "content-type";
      }
      if (!accept) flat.push("Accept", "application/json");
      if (bytes && !ctype) flat.push("Content-Type", type);
      return plain(core.request(method.toUpperCase(), path, flat, bytes));
    });
    if (answer.failed) return answer.failed;
    if (answer.value.watch !== undefined) {
      const w = answer.value.watch;
      const lines = this.#call((core) => {
        const got = core.poll(w);
        const events = got.events;
        got.free();
        core.close(w);
        return events;
      });
      if (lines.failed) return lines.failed;
      answer.value.body = utf8.encode(lines.value);
    }
    const r = response(answer.value);
    this.#pump();
    return r;
  }

  /**
   * Follows a watch: `for await (const ev of sim.watch(path)) …` gives
   * `{type, object}` events as the simulator is driven (requests, kubectl,
   * advance), ends when the server ends the stream, and stops on
   * `close()` (or `break`). `response` holds the answer's head; a refused
   * watch gives one ERROR event with its Status.
   */
  watch(path, { headers = {} } = {}) {
    const target = /[?&]watch=/.test(path) ? path : `${path}${path.includes("?") ? "&" : "?"}watch=1`;
    const flat = [];
    for (const [k, v] of Object.entries(headers)) flat.push(k, String(v));
    const answer = this.#call((core) => plain(core.request("GET", target, flat, undefined)));
    const w = new Watch(this, answer.failed ? null : answer.value.watch ?? null);
    if (answer.failed) {
      w.response = answer.failed;
      w.push({ type: "ERROR", object: answer.failed.body });
      w.end();
    } else if (w.id === null) {
      w.response = response(answer.value);
      w.push({ type: "ERROR", object: w.response.body });
      w.end();
    } else {
      w.response = response({ ...answer.value, body: new Uint8Array() });
      this.#watches.add(w);
      this.#pump();
    }
    return w;
  }

  /** Runs a kubectl command line with the page's kubectl; what it prints. */
  kubectl(line, { stdin = "" } = {}) {
    return this.kubectlResult(line, { stdin }).text;
  }

  /**
   * As `kubectl`, with whether the command failed: `{text, failed}`; the
   * first run of `edit` adds `edit`, the object's YAML to change and pass
   * back as `stdin` to the same command, which saves it.
   */
  kubectlResult(line, { stdin = "" } = {}) {
    const r = this.#call((core) => {
      const p = core.kubectl(line, stdin);
      const out = { text: p.text, failed: p.failed, edit: p.edit };
      p.free();
      return out;
    });
    if (r.failed) return { text: `Error from server (InternalError): ${r.failed.body.message}\n`, failed: true };
    this.#pump();
    const { text, failed, edit } = r.value;
    return edit === undefined ? { text, failed } : { text, failed, edit };
  }

  /** Moves simulated time forward ("90s", "5m", "1h30m", or milliseconds). */
  advance(duration) {
    const d = typeof duration === "number" ? `${Math.max(0, Math.round(duration))}ms` : String(duration);
    const r = this.#call((core) => plain(core.advance(d)));
    if (r.failed) return r.failed;
    this.#pump();
    return response(r.value);
  }

  /** Compacts history up to the current revision. */
  compact() {
    const r = this.#call((core) => plain(core.compact()));
    if (r.failed) return r.failed;
    this.#pump();
    return response(r.value);
  }

  /** The session (seed and every write) as JSON text, for `Simulator.import`. */
  export() {
    const r = this.#call((core) => core.export());
    if (r.failed) throw new Error(`kubesim: ${r.failed.body.message}`);
    return r.value;
  }

  /** Simulated time now, as a Date. */
  get now() {
    return new Date(this.#call((core) => core.now()).value ?? NaN);
  }

  /** The newest resourceVersion, as a string. */
  get resourceVersion() {
    const r = this.#call((core) => core.revision());
    return r.failed ? "" : String(r.value);
  }

  /** Frees the cluster (its watches end). */
  free() {
    for (const w of this.#watches) w.end();
    this.#watches.clear();
    if (!this.#module.aborted) this.#core.free();
  }

  /** Panics inside the module (for tests of what a panic does). */
  panicForTest() {
    return this.#call(() => this.#module.glue.panicForTest()).failed;
  }

  // Runs a call into the module; a trap (a panic aborts on wasm32) marks
  // the module aborted and becomes a 500 Status.
  #call(f) {
    if (this.#module.aborted) {
      return { failed: failure(503, "ServiceUnavailable", "kubesim aborted earlier; create a new Simulator") };
    }
    try {
      return { value: f(this.#core) };
    } catch (e) {
      if (!(e instanceof WebAssembly.RuntimeError)) throw e;
      this.#module.aborted = true;
      let why = "";
      try {
        why = this.#module.glue.lastPanic();
      } catch {
        // The module cannot say: the trap is all there is.
      }
      for (const w of this.#watches) w.end();
      this.#watches.clear();
      const message = `kubesim aborted: ${why || e.message}; create a new Simulator`;
      return { failed: failure(500, "InternalError", message) };
    }
  }

  // Hands every open watch what its stream has ready.
  #pump() {
    for (const w of this.#watches) {
      const r = this.#call((core) => {
        const got = core.poll(w.id);
        const out = { events: got.events, done: got.done };
        got.free();
        return out;
      });
      if (r.failed) return;
      for (const l of r.value.events.split("\n")) if (l !== "") w.push(JSON.parse(l));
      if (r.value.done) {
        this.#watches.delete(w);
        w.end();
      }
    }
  }

  /** @internal */
  closeWatch(w) {
    if (this.#watches.delete(w) && !this.#module.aborted) this.#core.close(w.id);
  }
}

// Copies an answer out of the module's memory (and frees it there).
function plain(a) {
  const out = { status: a.status, headers: a.headers, body: a.body, watch: a.watch };
  a.free();
  return out;
}

function failure(code, reason, message) {
  const body = statusOf(code, reason, message);
  return { status: code, ok: false, headers: { "content-type": "application/json" }, rawHeaders: [["Content-Type", "application/json"]], body };
}

/** A watch being followed: an async iterator of `{type, object}`. */
export class Watch {
  #sim;
  #queue = [];
  #waiting = [];
  #ended = false;

  constructor(sim, id) {
    this.#sim = sim;
    this.id = id;
    this.response = null;
  }

  /** @internal */
  push(event) {
    const waiter = this.#waiting.shift();
    if (waiter) waiter({ value: event, done: false });
    else this.#queue.push(event);
  }

  /** @internal */
  end() {
    this.#ended = true;
    for (const waiter of this.#waiting.splice(0)) waiter({ value: undefined, done: true });
  }

  /** Events that arrived and were not read yet (without waiting). */
  take() {
    return this.#queue.splice(0);
  }

  next() {
    if (this.#queue.length > 0) return Promise.resolve({ value: this.#queue.shift(), done: false });
    if (this.#ended) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve) => this.#waiting.push(resolve));
  }

  /** Stops following: the iterator ends after what was already read. */
  close() {
    this.#sim.closeWatch(this);
    this.#queue.length = 0;
    this.end();
  }

  return() {
    this.close();
    return Promise.resolve({ value: undefined, done: true });
  }

  [Symbol.asyncIterator]() {
    return this;
  }
}

/** "5m", "90s", "1h30m", "250ms" or a number of milliseconds. */
function durationMs(d) {
  if (typeof d === "number") return d;
  let total = 0;
  const re = /(\d+(?:\.\d+)?)(ms|h|m|s)/g;
  let matched = "";
  for (let m; (m = re.exec(d)); ) {
    matched += m[0];
    total += Number(m[1]) * { ms: 1, s: 1000, m: 60000, h: 3600000 }[m[2]];
  }
  if (matched !== d || d === "") throw new Error(`kubesim: not a duration: ${JSON.stringify(d)}`);
  return total;
}
