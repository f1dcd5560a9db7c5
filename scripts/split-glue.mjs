// node scripts/split-glue.mjs INDEX.html PRIMARY.wasm GLUE.js [DEFERRED_FILE]
// (run by scripts/split-page.sh): with DEFERRED_FILE, gives wasm-bindgen's
// glue the two imports of the split module (`kubesim_split.load` and
// `.note`) and the loader of its second part; then puts the hashes of the
// glue and the module as they now are in index.html's `integrity`
// attributes (Trunk computed them before the hook).
import { readFileSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { basename } from 'node:path';

const [index, primary, glue, deferred] = process.argv.slice(2);
if (deferred) addLoader();

function addLoader() {
  let js = readFileSync(glue, 'utf8');

  // wasm-bindgen 0.2.130's imports object: one namespace, its own module.
  const namespace = /("\.\/kubesim-web_bg\.js": import0,)/;
  if ((js.match(new RegExp(namespace.source, 'g')) || []).length !== 1) {
    throw new Error(`split-glue: ${glue} does not have the one imports object it expects (wasm-bindgen changed?)`);
  }
  js = js.replace(namespace, '$1\n        "kubesim_split": __kubesimSplit,');

  js += `
// kubesim: the second part of the module (scripts/split-page.sh).
const __kubesimDeferredUrl = new URL(${JSON.stringify(deferred)}, import.meta.url);
let __kubesimDeferredModule = null;
let __kubesimDeferredFetch = null;
function __kubesimInstantiate() {
    if (wasm.$loaded.value === 1) return;
    new WebAssembly.Instance(__kubesimDeferredModule, { p: wasm });
    wasm.$loaded.value = 1;
    performance.mark('kubesim:deferred');
}
const __kubesimSplit = {
    // A stub was called before the second part arrived: fetch it now.
    load() {
        if (!__kubesimDeferredModule) {
            const x = new XMLHttpRequest();
            x.open('GET', __kubesimDeferredUrl, false);
            x.overrideMimeType('text/plain; charset=x-user-defined');
            x.send();
            if (x.status !== 200) throw new Error('kubesim: the second part of the module did not load (' + x.status + ')');
            const text = x.responseText, bytes = new Uint8Array(text.length);
            for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i) & 0xff;
            __kubesimDeferredModule = new WebAssembly.Module(bytes);
            performance.mark('kubesim:deferred-sync');
        }
        __kubesimInstantiate();
    },
    // Instrumented builds only (scripts/split-profile.sh).
    note(slot) { (globalThis.__kubesimSplitNoted ??= new Set()).add(slot); },
};
// Fetched once the page is ready (its starter cluster built), in the background.
function __kubesimLoadDeferred() {
    __kubesimDeferredFetch ??= WebAssembly.compileStreaming(fetch(__kubesimDeferredUrl)).then((m) => {
        __kubesimDeferredModule ??= m;
        if (wasm) __kubesimInstantiate();
    }, (e) => {
        // Not fatal: a later call fetches it again (or the next one here).
        console.warn('kubesim: the second part of the module did not load in the background', e);
        __kubesimDeferredFetch = null;
    });
    return __kubesimDeferredFetch;
}
globalThis.kubesimLoadDeferred = __kubesimLoadDeferred;
if (typeof PerformanceObserver === 'function') {
    const seen = new PerformanceObserver((list) => {
        if (list.getEntriesByName('kubesim:ready').length) { seen.disconnect(); __kubesimLoadDeferred(); }
    });
    seen.observe({ type: 'mark' });
}
`;
  writeFileSync(glue, js);
}

const sri = (file) => 'sha384-' + createHash('sha384').update(readFileSync(file)).digest('base64');
let html = readFileSync(index, 'utf8');
for (const file of [glue, primary]) {
  const name = basename(file).replace(/[.]/g, '[.]');
  const link = new RegExp(`(href="[^"]*${name}"[^>]*integrity=")[^"]*(")`);
  if (!link.test(html)) throw new Error(`split-glue: index.html has no integrity for ${basename(file)}`);
  html = html.replace(link, `$1${sri(file)}$2`);
}
writeFileSync(index, html);
