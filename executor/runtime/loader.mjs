// Node module hooks for TypeScript in the jail: relative imports resolve
// without extensions and to folders (index.ts), as the public "code
// execution with MCP" layout writes them; .ts files lose their types through
// sucrase (no type checking, ES modules kept as they are).
import { readFile } from "node:fs/promises";
import { statSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";
import { transform } from "sucrase";

const TS = /\.(ts|mts|cts|tsx)$/;
const EXTS = [".ts", ".tsx", ".mts", ".js", ".mjs", ".json"];

function kind(path) {
	try {
		const st = statSync(path);
		return st.isFile() ? "file" : st.isDirectory() ? "dir" : null;
	} catch {
		return null;
	}
}

function candidates(path) {
	const out = [];
	if (path.endsWith(".js")) out.push(path.slice(0, -3) + ".ts");
	for (const ext of EXTS) out.push(path + ext);
	for (const ext of EXTS) out.push(path + "/index" + ext);
	return out;
}

export async function resolve(specifier, context, next) {
	const relative = /^(\.{1,2}\/|\/|file:)/.test(specifier);
	if (relative && context.parentURL) {
		const url = new URL(specifier, context.parentURL);
		if (url.protocol === "file:") {
			const path = fileURLToPath(url);
			if (kind(path) !== "file") {
				for (const c of candidates(path)) {
					if (kind(c) === "file")
						return { url: pathToFileURL(c).href, shortCircuit: true };
				}
			}
		}
	}
	return next(specifier, context);
}

export async function load(url, context, next) {
	if (url.startsWith("file:") && TS.test(url)) {
		const path = fileURLToPath(url);
		const source = await readFile(path, "utf8");
		const { code } = transform(source, {
			transforms: ["typescript"],
			filePath: path,
			disableESTransforms: true,
		});
		return { format: "module", source: code, shortCircuit: true };
	}
	return next(url, context);
}
