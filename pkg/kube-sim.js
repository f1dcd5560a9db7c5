// <kube-sim>: kubesim's browser app as an element for documentation pages.
//
//   <script type="module" src="…/kube-sim.js"></script>
//   <kube-sim lesson="watch-from-rv" panels="kubectl,lanes" height="420" lang="zh" seed="7"></kube-sim>
//
// Each element renders into its own shadow root, so no style leaks either
// way. It shows a placeholder of its final height until it first scrolls
// into view, and only then loads the WebAssembly module (once for the
// page). Elements with the same `cluster` name share one cluster; the
// others each get their own. Attributes are read once, when the element
// starts. Taken off the page it stops (and fires `kube-sim-stopped`);
// put back, it starts again.
//
//   panels     kubectl, lanes, inspector, owners, console, log, timeline,
//              pager, explorer, fairness, metrics (default: the lesson's,
//              else kubectl,lanes)
//   lesson     a lesson id (lessons/index.yaml), or a lesson file's URL;
//              or a child <script type="application/yaml" lesson> holding
//              one (a lesson starts its own cluster from the seed)
//   lang       en or zh (default: the browser's)
//   seed       a whole number (default 1)
//   cluster    a name shared with other elements
//   height     in CSS pixels (default 420)
//   scenario   a URL of YAML objects to create; or a child
//              <script type="application/yaml"> holding them

const here = new URL("./element/", import.meta.url);

let module = null;
let sheet = null;

/** The element's module (loaded once for the page), for `embed.html`. */
export function loadModule() {
  module ??= (async () => {
    const glue = await import(new URL("kubesim_element.js", here).href);
    await glue.default({ module_or_path: new URL("kubesim_element_bg.wasm", here) });
    // The rest of the module, fetched while the first element is built
    // (docs/embedding.md, "Two parts").
    glue.kubesimLoadDeferred?.();
    return glue;
  })();
  return module;
}

/**
 * The app's style sheet made to work inside a shadow root: `:root` is the
 * host, `body` the element's own body, and rem (the host page's root font
 * size) the app's own 13px.
 */
export function forShadow(css) {
  return css
    .replace(/:root((?:\[[^\]]*\]|:not\([^)]*\))+)/g, ":host($1)")
    .replace(/:root\b/g, ":host")
    .replace(/(^|[\s,}])body(?=[\s,{.:[])/g, "$1.ks-body")
    .replace(/(\d*\.?\d+)rem\b/g, "calc($1 * var(--ks-rem))");
}

const HOST_CSS = `
:host { display: block; position: relative; --ks-rem: 13px; font-size: var(--ks-rem); contain: content; }
.ks-body { overflow: auto; border: 1px solid var(--line); border-radius: 6px; }
.ks-placeholder { display: flex; align-items: center; justify-content: center; box-sizing: border-box;
  border: 1px dashed #8888; border-radius: 6px; color: #666; font: 14px system-ui, sans-serif; }
.ks-aborted { position: absolute; inset: 0; background: #fff3f3; color: #7a0000; padding: 12px;
  font: 14px system-ui, sans-serif; white-space: pre-wrap; overflow: auto; }
@media (prefers-color-scheme: dark) {
  .ks-placeholder { color: #aaa; }
  .ks-aborted { background: #3a0d0d; color: #ffd7d7; }
}
.embed-bar { gap: 8px; padding: 4px 8px; }
.embed-grid { grid-template-columns: 1fr; }
`;

let host = null;

// The element's own rules (its placeholder too, before the app's load).
function hostSheet() {
  if (!host) {
    host = new CSSStyleSheet();
    host.replaceSync(HOST_CSS);
  }
  return host;
}

function loadSheet() {
  sheet ??= (async () => {
    const answer = await fetch(new URL("style.css", here));
    if (!answer.ok) throw new Error(`kube-sim: style.css: ${answer.status}`);
    const s = new CSSStyleSheet();
    s.replaceSync(forShadow(await answer.text()));
    return s;
  })();
  return sheet;
}

export class KubeSim extends HTMLElement {
  static observedAttributes = ["aborted"];
  #started = false;
  /** The mounted app, stopped when the element leaves the page. */
  #app = null;
  #seen = null;
  /** Bumped each time it starts afresh: a load begun before is dropped. */
  #round = 0;

  connectedCallback() {
    // Moved within the page (taken out and put back at once): it goes on.
    if (this.shadowRoot && (this.#app || this.#seen)) return;
    const shadow = this.shadowRoot ?? this.attachShadow({ mode: "open" });
    shadow.replaceChildren();
    shadow.adoptedStyleSheets = [hostSheet()];
    this.#started = false;
    this.#round += 1;
    this.removeAttribute("ready");
    const height = this.#height();
    const placeholder = document.createElement("div");
    placeholder.className = "ks-placeholder";
    placeholder.setAttribute("role", "status");
    placeholder.style.height = `${height}px`;
    placeholder.textContent = "kubesim: a simulated Kubernetes API server loads here.";
    shadow.append(placeholder);
    const seen = new IntersectionObserver((entries) => {
      if (entries.some((e) => e.isIntersecting)) {
        seen.disconnect();
        this.#seen = null;
        this.#start(placeholder).catch((e) => this.#fail(placeholder, e));
      }
    });
    seen.observe(this);
    this.#seen = seen;
  }

  // Taken off the page: its app stops (clock, lanes) once it is clear
  // that it was not only moved; a shared cluster stays for the others.
  // Put back later, it starts again (the same cluster when shared).
  disconnectedCallback() {
    queueMicrotask(() => {
      if (this.isConnected) return;
      this.#seen?.disconnect();
      this.#seen = null;
      this.#app?.unmount();
      this.#app?.free();
      this.#app = null;
      this.#started = false;
      this.dispatchEvent(new CustomEvent("kube-sim-stopped"));
    });
  }

  attributeChangedCallback(name, _old, value) {
    if (name === "aborted" && value !== null && this.shadowRoot) {
      const box = document.createElement("div");
      box.className = "ks-aborted";
      box.setAttribute("role", "alert");
      box.textContent = `kubesim stopped after an internal error, and with it every kubesim on this page. Reload the page to start again.\n\n${value}`;
      this.shadowRoot.append(box);
    }
  }

  #height() {
    const h = Number.parseInt(this.getAttribute("height") ?? "", 10);
    return Number.isFinite(h) && h > 0 ? h : 420;
  }

  // What a child <script type="application/yaml"> holds (the one marked
  // `lesson`, or not), else what the attribute's URL holds.
  async #yaml(kind, attribute) {
    const selector = ['script[type="application/yaml"]', 'script[type="text/yaml"]']
      .map((s) => (kind === "lesson" ? `${s}[lesson]` : `${s}:not([lesson])`))
      .join(", ");
    const inline = this.querySelector(selector);
    if (inline) return inline.textContent;
    const src = attribute ?? "";
    if (!src) return "";
    const answer = await fetch(new URL(src, document.baseURI));
    if (!answer.ok) throw new Error(`kube-sim: ${kind} ${src}: ${answer.status}`);
    return answer.text();
  }

  // The objects a cluster starts with: this element's, or, for a shared
  // cluster, those of the first element of the page (in document order)
  // that names the cluster and has some. So it does not matter which of
  // them scrolls into view first.
  #clusterScenario() {
    const name = this.getAttribute("cluster");
    const has = (el) =>
      el.hasAttribute("scenario") ||
      el.querySelector('script[type="application/yaml"]:not([lesson]), script[type="text/yaml"]:not([lesson])');
    let from = this;
    if (name && !has(this)) {
      from = [...document.querySelectorAll("kube-sim")].find((el) => el.getAttribute("cluster") === name && has(el)) ?? this;
    }
    return from.#yaml("scenario", from.getAttribute("scenario"));
  }

  // A lesson attribute is an id, or a URL when it has a slash or ends in .yaml.
  #lessonUrl() {
    const l = this.getAttribute("lesson") ?? "";
    return l.includes("/") || l.endsWith(".yaml") ? l : null;
  }

  async #start(placeholder) {
    if (this.#started) return;
    this.#started = true;
    const round = this.#round;
    const [glue, css, scenario, lessonText] = await Promise.all([
      loadModule(),
      loadSheet(),
      this.#clusterScenario(),
      this.#yaml("lesson", this.#lessonUrl()),
    ]);
    const shadow = this.shadowRoot;
    shadow.adoptedStyleSheets = [css, hostSheet()];
    const body = document.createElement("div");
    body.className = "ks-body";
    body.style.height = `${this.#height()}px`;
    const attr = (n) => this.getAttribute(n) ?? "";
    // A lesson by URL is named by its file.
    const url = this.#lessonUrl();
    const lessonId = url ? url.split("/").pop().replace(/\.yaml$/, "") : attr("lesson");
    // (Taken off the page while loading, or put back and started anew:
    // nothing to mount here.)
    if (!this.isConnected || round !== this.#round) return;
    this.#app = glue.mountKubeSim(body, {
      panels: attr("panels"), lesson: lessonId, lessonText, lang: attr("lang"),
      seed: attr("seed"), cluster: attr("cluster"), scenario, base: here.href,
    });
    placeholder.replaceWith(body);
    this.setAttribute("ready", "");
    this.dispatchEvent(new CustomEvent("kube-sim-ready", { bubbles: true }));
  }

  #fail(placeholder, e) {
    placeholder.setAttribute("role", "alert");
    placeholder.textContent = e instanceof Error ? e.message : String(e);
    this.setAttribute("failed", placeholder.textContent);
  }
}

if (!customElements.get("kube-sim")) customElements.define("kube-sim", KubeSim);
