// The official TypeScript SDK client doing what the bench asks of mcpfs:
//   node client_sdk.mjs echo N COMMAND ARGS...   N sequential echo calls after the first
//   node client_sdk.mjs catalog COMMAND ARGS...  spawn, initialize, tools/list
// Prints one JSON line: {"calls", "seconds", "per_s"} or {"seconds", "tools"}.
const sdk = new URL("../tests/node/node_modules/@modelcontextprotocol/sdk/dist/esm/",
	import.meta.url);
const { Client } = await import(new URL("client/index.js", sdk));
const { StdioClientTransport } = await import(new URL("client/stdio.js", sdk));

const [mode, ...rest] = process.argv.slice(2);
const n = mode === "echo" ? Number(rest.shift()) : 0;
const [command, ...args] = rest;

const t0 = performance.now();
const client = new Client({ name: "bench", version: "1.0.0" });
await client.connect(new StdioClientTransport({ command, args, stderr: "ignore" }));
if (mode === "catalog") {
	const { tools } = await client.listTools();
	console.log(JSON.stringify({ seconds: (performance.now() - t0) / 1000, tools: tools.length }));
} else {
	await client.callTool({ name: "echo", arguments: { message: "x" } });
	const t1 = performance.now();
	for (let i = 0; i < n; i++)
		await client.callTool({ name: "echo", arguments: { message: "x" } });
	const s = (performance.now() - t1) / 1000;
	console.log(JSON.stringify({ calls: n, seconds: s, per_s: n / s }));
}
await client.close();
process.exit(0);
