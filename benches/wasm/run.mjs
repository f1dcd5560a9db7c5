// Runs a wasm32-wasip1 build of the rollout in Node (V8, as Chromium):
//   node benches/wasm/run.mjs FILE.wasm [N]
import { WASI } from 'node:wasi';
import { readFileSync } from 'node:fs';

const [file, n = '1'] = process.argv.slice(2);
const wasi = new WASI({ version: 'preview1', args: ['kubesim-bench-wasm', n], env: {}, returnOnExit: true });
const module = await WebAssembly.compile(readFileSync(file));
const instance = await WebAssembly.instantiate(module, wasi.getImportObject());
process.exitCode = wasi.start(instance);
