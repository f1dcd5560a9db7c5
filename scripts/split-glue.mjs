// node scripts/split-glue.mjs GLUE.js DEFERRED_FILE [--on-ready-mark] [--index INDEX.html PRIMARY.wasm]
// Gives wasm-bindgen's glue (GLUE.js) the two imports of a module split by
// tools/wasm-split (`kubesim_split.load` and `.note`) and the loader of its
// second part, DEFERRED_FILE (a name next to the glue), or "-" for a module
// not split (the glue is left alone). Run by scripts/split-page.sh for the
// page and by scripts/build-pkg.sh for the package's two modules.
//
// The loader, in the browser and in Node:
//   - the glue exports `kubesimLoadDeferred()`: fetches the second part in
//     the background (Node reads the file) and instantiates it once the
//     first part runs; a failed fetch is a warning, and the next call (or
//     a stub) tries again;
//   - a stub called before then reads the second part at once,
//     synchronously (a synchronous XMLHttpRequest, or Node's fs);
//   - `kubesimDeferredState()` says which happened: "absent", "background"
//     or "sync" (the performance marks `kubesim:deferred` and
//     `kubesim:deferred-sync` say it too);
//   - --on-ready-mark: the background fetch starts by itself once the page
//     marks `kubesim:ready` (the page; the package calls it instead), and
//     `window.kubesimLoadDeferred` is set.
// --index: puts the hashes of the glue and PRIMARY.wasm as they now are in
// INDEX.html's `integrity` attributes (Trunk computed them before the hook).
import { readFileSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { basename } from 'node:path';

const args = process.argv.slice(2);
const [glue, deferred] = args;
if (!glue || !deferred) throw new Error('usage: split-glue.mjs GLUE.js DEFERRED_FILE|- [--on-ready-mark] [--index INDEX.html PRIMARY.wasm]');
const onReadyMark = args.includes('--on-ready-mark');
const at = args.indexOf('--index');
if (deferred !== '-') addLoader();
if (at >= 0) refreshHashes(args[at + 1], args[at + 2]);

function addLoader() {
  let js = readFileSync(glue, 'utf8');

  // wasm-bindgen 0.2.130's imports object: one namespace, its own module.
  const namespace = /("\.\/[A-Za-z0-9_.-]+_bg\.js": import0,)/;
  if ((js.match(new RegExp(namespace.source, 'g')) || []).length !== 1) {
    throw new Error(`split-glue: ${glue} does not have the one imports object it expects (wasm-bindgen changed?)`);
  }
  js = js.replace(namespace, '$1\n        "kubesim_split": __kubesimSplit,');

  js += `
// kubesim: the second part of the module (scripts/split-glue.mjs).
const __kubesimDeferredUrl = new URL(${JSON.stringify(deferred)}, import.meta.url);
// Node reads the file (its fetch does not read file: URLs).
const __kubesimFs = typeof process === 'object' && process.versions && process.versions.node
    ? await import(/* webpackIgnore: true */ ['node', 'fs'].join(':')) : null;
let __kubesimDeferredModule = null;
let __kubesimDeferredFetch = null;
let __kubesimDeferred = 'absent';
function __kubesimInstantiate(how) {
    if (wasm.$loaded.value === 1) return;
    new WebAssembly.Instance(__kubesimDeferredModule, { p: wasm });
    wasm.$loaded.value = 1;
    __kubesimDeferred = how;
    performance.mark('kubesim:deferred');
}
function __kubesimReadNow() {
    if (__kubesimFs) return __kubesimFs.readFileSync(__kubesimDeferredUrl);
    const x = new XMLHttpRequest();
    x.open('GET', __kubesimDeferredUrl, false);
    x.overrideMimeType('text/plain; charset=x-user-defined');
    x.send();
    if (x.status !== 200) throw new Error('kubesim: the second part of the module did not load (' + x.status + ')');
    const text = x.responseText, bytes = new Uint8Array(text.length);
    for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i) & 0xff;
    return bytes;
}
const __kubesimSplit = {
    // A stub was called before the second part arrived: read it now.
    load() {
        let how = 'background';
        if (!__kubesimDeferredModule) {
            __kubesimDeferredModule = new WebAssembly.Module(__kubesimReadNow());
            performance.mark('kubesim:deferred-sync');
            how = 'sync';
        }
        __kubesimInstantiate(how);
    },
    // Instrumented builds only (scripts/split-profile.sh).
    note(slot) { (globalThis.__kubesimSplitNoted ??= new Set()).add(slot); },
};
/** Fetches the second part in the background (once); resolves when it is in. */
export function kubesimLoadDeferred() {
    __kubesimDeferredFetch ??= (__kubesimFs
        ? __kubesimFs.promises.readFile(__kubesimDeferredUrl).then((b) => WebAssembly.compile(b))
        : WebAssembly.compileStreaming(fetch(__kubesimDeferredUrl))
    ).then((m) => {
        __kubesimDeferredModule ??= m;
        if (wasm) __kubesimInstantiate('background');
    }, (e) => {
        // Not fatal: a later call fetches it again (or a stub reads it).
        console.warn('kubesim: the second part of the module did not load in the background', e);
        __kubesimDeferredFetch = null;
    });
    return __kubesimDeferredFetch;
}
/** How the second part came in: "absent" (not yet), "background" or "sync". */
export function kubesimDeferredState() { return __kubesimDeferred; }
`;
  if (onReadyMark) {
    js += `
// The page: fetched once it is ready (its starter cluster built).
globalThis.kubesimLoadDeferred = kubesimLoadDeferred;
if (typeof PerformanceObserver === 'function') {
    const seen = new PerformanceObserver((list) => {
        if (list.getEntriesByName('kubesim:ready').length) { seen.disconnect(); kubesimLoadDeferred(); }
    });
    seen.observe({ type: 'mark' });
}
`;
  }
  writeFileSync(glue, js);
}

function refreshHashes(index, primary) {
  const sri = (file) => 'sha384-' + createHash('sha384').update(readFileSync(file)).digest('base64');
  let html = readFileSync(index, 'utf8');
  for (const file of [glue, primary]) {
    const name = basename(file).replace(/[.]/g, '[.]');
    const link = new RegExp(`(href="[^"]*${name}"[^>]*integrity=")[^"]*(")`);
    if (!link.test(html)) throw new Error(`split-glue: ${index} has no integrity for ${basename(file)}`);
    html = html.replace(link, `$1${sri(file)}$2`);
  }
  writeFileSync(index, html);
}
