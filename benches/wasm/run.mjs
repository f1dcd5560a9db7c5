// Runs a wasm32-wasip1 build of the benchmark in Node (V8, as Chromium):
//   node benches/wasm/run.mjs FILE.wasm [N]          (N rollouts)
//   node benches/wasm/run.mjs FILE.wasm creates [N]  (N ConfigMap creates)
import { WASI } from 'node:wasi';
import { readFileSync } from 'node:fs';

const [file, ...rest] = process.argv.slice(2);
const args = rest.length ? rest : ['1'];
const wasi = new WASI({ version: 'preview1', args: ['kubesim-bench-wasm', ...args], env: {}, returnOnExit: true });
const module = await WebAssembly.compile(readFileSync(file));
const instance = await WebAssembly.instantiate(module, wasi.getImportObject());
process.exitCode = wasi.start(instance);
