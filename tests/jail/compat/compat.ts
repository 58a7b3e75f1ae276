// Everyday Node in the jail: worker threads, child_process, fs, crypto, zlib, WebAssembly.
import { Worker } from "node:worker_threads";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { createHash } from "node:crypto";
import { gunzipSync, gzipSync } from "node:zlib";

const worker: number = await new Promise((resolve, reject) => {
	const w = new Worker("const { parentPort } = require('node:worker_threads'); parentPort.postMessage(6 * 7);", { eval: true });
	w.once("message", resolve);
	w.once("error", reject);
});
const child = execFileSync("/usr/bin/node", ["-e", "console.log('child ok')"]).toString().trim();
const dir = mkdtempSync("/tmp/compat-");
writeFileSync(`${dir}/f.txt`, "hello");
const fsText = readFileSync(`${dir}/f.txt`, "utf8");
const sha = createHash("sha256").update("mcpfs").digest("hex").slice(0, 12);
const zipped = gunzipSync(gzipSync(Buffer.from("zlib ok"))).toString();
// (module (func (export "add") (param i32 i32) (result i32) local.get 0 local.get 1 i32.add))
const wasm = new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0, 1, 7, 1, 96, 2, 127, 127, 1, 127, 3, 2, 1,
	0, 7, 7, 1, 3, 97, 100, 100, 0, 0, 10, 9, 1, 7, 0, 32, 0, 32, 1, 106, 11]);
const { instance } = await WebAssembly.instantiate(wasm);
const add = (instance.exports as { add: (a: number, b: number) => number }).add;
console.log(JSON.stringify({ worker, child, fsText, sha, zipped, wasm: add(40, 2) }));
