// Runs a TypeScript program on Node 20: `node --experimental-vm-modules ts.cjs main.ts`.
// Node 20's module hooks run in a second thread that costs ~20 ms at every
// start, so each .ts module is stripped here, in the main thread, by sucrase
// (types only: no checking, ES modules and line numbers kept as written) and
// linked as a vm.SourceTextModule. Sucrase comes as one bundle with a V8 code
// cache made at build time (build.mjs), which saves compiling it at each start.
// Relative imports resolve without extensions and to folders (index.ts), as
// the public "code execution with MCP" layout writes them; anything else
// (node: builtins, .js, .json) goes through Node's own import().
"use strict";
const fs = require("node:fs");
const path = require("node:path");
const vm = require("node:vm");
const { createRequire, isBuiltin } = require("node:module");
const { fileURLToPath, pathToFileURL } = require("node:url");

const TS = /\.(ts|mts|cts|tsx)$/;
const EXTS = [".ts", ".tsx", ".mts", ".js", ".mjs", ".json"];
// The bundle runs as the body of this function; build.mjs caches the same text.
const WRAP = ["(function (module, exports, require) {", "\n})"];

function sucraseLoad(dir, cache) {
	const file = path.join(dir, "sucrase.js");
	const source = WRAP[0] + fs.readFileSync(file, "utf8") + WRAP[1];
	let cachedData;
	try {
		cachedData = cache ? fs.readFileSync(cache) : undefined;
	} catch {
		cachedData = undefined; // no cache: compile, a little slower
	}
	const script = new vm.Script(source, { filename: file, cachedData });
	const module = { exports: {} };
	script.runInThisContext()(module, module.exports, require);
	return { transform: module.exports.transform, script };
}

function kind(p) {
	try {
		const st = fs.statSync(p);
		return st.isFile() ? "file" : st.isDirectory() ? "dir" : null;
	} catch {
		return null;
	}
}

function candidates(p) {
	const out = [p];
	if (p.endsWith(".js")) out.push(p.slice(0, -3) + ".ts");
	for (const ext of EXTS) out.push(p + ext);
	for (const ext of EXTS) out.push(p + "/index" + ext);
	return out;
}

// Errors about the program, not this file: the top level prints their
// report alone, without a stack through ts.cjs or the minified bundle.
const REPORT = Symbol("report");

function notFound(specifier, from) {
	const e = new Error(`Cannot find module '${specifier}' imported from ${from}`);
	e.code = "ERR_MODULE_NOT_FOUND";
	e[REPORT] = `Error [${e.code}]: ${e.message}`;
	return e;
}

// Sucrase's error, pointing at the .ts line as Node points at a .js one.
function syntaxError(e, file, source) {
	if (!e || !e.loc) return e;
	const line = source.split("\n")[e.loc.line - 1] || "";
	const where = `${file}:${e.loc.line}`;
	const caret = " ".repeat(Math.max(0, e.loc.column - 1)) + "^";
	const out = new SyntaxError(`${where}:${e.loc.column}: ${e.message.replace(`Error transforming ${file}: `, "")}`);
	out[REPORT] = `${where}\n${line}\n${caret}\n\nSyntaxError: ${e.message}`;
	return out;
}

function runner(transform) {
	const modules = new Map(); // URL -> vm.Module

	// The file URL an import names, or null for Node to resolve (builtins, packages).
	function resolve(specifier, fromPath) {
		if (isBuiltin(specifier)) return null;
		if (!/^(\.{1,2}\/|\/|file:)/.test(specifier)) {
			try {
				return pathToFileURL(createRequire(fromPath).resolve(specifier)).href;
			} catch {
				throw notFound(specifier, fromPath);
			}
		}
		const url = new URL(specifier, pathToFileURL(fromPath));
		const found = candidates(fileURLToPath(url)).find((c) => kind(c) === "file");
		if (!found) throw notFound(fileURLToPath(url), fromPath);
		return pathToFileURL(found).href;
	}

	async function load(specifier, fromPath, attributes) {
		const url = resolve(specifier, fromPath);
		const key = url || specifier;
		if (modules.has(key)) return modules.get(key);
		let m;
		if (url && TS.test(url)) {
			const file = fileURLToPath(url);
			const source = fs.readFileSync(file, "utf8");
			let code;
			try {
				const opts = { transforms: ["typescript"], filePath: file, disableESTransforms: true };
				code = transform(source, opts).code;
			} catch (e) {
				throw syntaxError(e, file, source);
			}
			m = new vm.SourceTextModule(code, {
				identifier: url,
				initializeImportMeta(meta) {
					meta.url = url;
					meta.filename = file;
					meta.dirname = path.dirname(file);
				},
				importModuleDynamically: (spec, _m, attrs) => importFrom(spec, file, attrs),
			});
		} else {
			const withAttrs = attributes && Object.keys(attributes).length;
			const ns = await import(key, withAttrs ? { with: attributes } : undefined);
			const names = Object.keys(ns);
			m = new vm.SyntheticModule(
				names,
				function () {
					for (const n of names) this.setExport(n, ns[n]);
				},
				{ identifier: key },
			);
		}
		modules.set(key, m);
		return m;
	}

	function link(specifier, referencing, extra) {
		const from = fileURLToPath(referencing.identifier);
		return load(specifier, from, extra && (extra.attributes || extra.assert));
	}

	const ready = new WeakMap(); // vm.Module -> its link and evaluation, started once
	async function importFrom(specifier, fromPath, attributes) {
		const m = await load(specifier, fromPath, attributes);
		if (!ready.has(m))
			ready.set(m, m.status === "unlinked" ? m.link(link).then(() => m.evaluate()) : m.evaluate());
		await ready.get(m);
		return m;
	}

	return importFrom;
}

module.exports = { WRAP, sucraseLoad };

if (require.main === module) {
	const dist = path.join(__dirname, "dist");
	const { transform } = sucraseLoad(dist, path.join(dist, "sucrase.cache"));
	const main = path.resolve(process.argv[2]);
	process.argv.splice(1, 2, main); // the program sees itself as argv[1], as under plain node
	runner(transform)(pathToFileURL(main).href, main).catch((e) => {
		if (!e || !e[REPORT]) throw e; // Node reports it and exits 1
		process.stderr.write(e[REPORT] + "\n");
		process.exitCode = 1;
	});
}
