// Builds the jail's TypeScript runtime into dist/: sucrase as one minified
// bundle, and a V8 code cache of it made by this node with the flags ts.cjs
// runs under (V8 rejects a cache from another node or other flags, and then
// ts.cjs compiles the bundle itself). Run from the Makefile: `make runtime`.
import { mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const here = dirname(fileURLToPath(import.meta.url));
const dist = join(here, "dist");
const { sucraseLoad } = createRequire(import.meta.url)("./ts.cjs");

if (!process.execArgv.includes("--experimental-vm-modules"))
	throw new Error("run as node --experimental-vm-modules build.mjs, the flags ts.cjs runs under");
// Built aside and renamed into place: two builds at once (make -j2 of
// build/ and build-asan/) each leave a whole pair, the same bundle.
const tmp = mkdtempSync(join(here, ".dist-"));
try {
	await build({
		entryPoints: [join(here, "node_modules/sucrase/dist/esm/index.js")],
		bundle: true,
		platform: "node",
		format: "cjs",
		minify: true,
		outfile: join(tmp, "sucrase.js"),
		logLevel: "warning",
	});
	// Strip a sample first so that the cache holds the functions a strip runs,
	// compiled, not only the bundle's top level.
	const { transform, script } = sucraseLoad(tmp, null);
	transform('import type { T } from "./t";\nenum E { A }\nexport const x: T = E.A as number;\n', {
		transforms: ["typescript"],
		disableESTransforms: true,
	});
	writeFileSync(join(tmp, "sucrase.cache"), script.createCachedData());
	mkdirSync(dist, { recursive: true });
	renameSync(join(tmp, "sucrase.js"), join(dist, "sucrase.js"));
	renameSync(join(tmp, "sucrase.cache"), join(dist, "sucrase.cache"));
} finally {
	rmSync(tmp, { recursive: true, force: true });
}
