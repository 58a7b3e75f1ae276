// A server that misbehaves a little, the way servers from the registry do
// (issue 23), to show one bad part never takes out the rest:
//   node sdk_compat.mjs [--banner N] [--pages P --per-page N] [--churn MS STATE_FILE]
// - --banner N: N lines of text on stdout before JSON-RPC (as time-mcp prints one)
// - tools: `ok`; `bad_utf8`, whose description holds bytes that are not UTF-8;
//   `deep`, whose schema nests 3,000 levels (past the JSON decoder's 2,048);
//   `same` three times; and instructions at initialize
// - --deep N: nest `deep` N levels instead (under the limit: a kept tool)
// - --pages P --per-page N: P pages of N synthetic tools each (tools/list cursors)
// - --churn MS: the catalog changes every MS ms (a tool named by a counter),
//   with notifications/tools/list_changed each time
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const arg = (name, dflt) => {
	const i = process.argv.indexOf(name);
	return i < 0 ? dflt : process.argv[i + 1];
};
const banner = Number(arg("--banner", 0));
const pages = Number(arg("--pages", 0));
const perPage = Number(arg("--per-page", 0));
const churn = Number(arg("--churn", 0));
const deepLevels = Number(arg("--deep", 3000));

const obj = { type: "object", properties: {} };
const BAD = "@@BAD_UTF8@@";
const DEEP = "@@DEEP@@";
const fixed = [
	{ name: "ok", description: "A well-formed tool.", inputSchema: obj },
	{ name: "bad_utf8", description: `Broken ${BAD} text.`, inputSchema: obj },
	{ name: "deep", description: "Nested too deep.", inputSchema: { type: "object", properties: { x: DEEP } } },
	{ name: "same", description: "The first same.", inputSchema: obj },
	{ name: "same", description: "The second same.", inputSchema: obj },
	{ name: "same", description: "The third same.", inputSchema: obj },
];

let generation = 0;
const page = (p) => Array.from({ length: perPage }, (_, i) => ({
	name: `t_${p}_${i}`,
	description: `Synthetic tool ${i} of page ${p}.`,
	inputSchema: obj,
}));

const server = new Server(
	{ name: "sdk-compat", version: "1.0.0" },
	{
		capabilities: { tools: { listChanged: true } },
		instructions: "Call ok first. These instructions end here.",
	},
);
server.setRequestHandler(ListToolsRequestSchema, async (req) => {
	if (pages) {
		const p = Number(req.params?.cursor ?? 0);
		return { tools: page(p), ...(p + 1 < pages ? { nextCursor: String(p + 1) } : {}) };
	}
	if (churn)
		return { tools: [{ name: `gen_${generation}`, description: "Changes.", inputSchema: obj }] };
	return { tools: fixed };
});
server.setRequestHandler(CallToolRequestSchema, async (req) => ({
	content: [{ type: "text", text: `called ${req.params.name}` }],
}));

for (let i = 0; i < banner; i++)
	process.stdout.write(`sdk-compat banner line ${i}: starting up\n`);

const transport = new StdioServerTransport();
// Raw bytes where the markers are: JSON.stringify can write neither.
transport.send = async (msg) => {
	let s = JSON.stringify(msg) + "\n";
	const depth = deepLevels;
	s = s.replace(`"${DEEP}"`, '{"a":'.repeat(depth) + "1" + "}".repeat(depth));
	const parts = s.split(BAD);
	const out = [];
	parts.forEach((p, i) => {
		if (i)
			out.push(Buffer.from([0xff, 0xc3, 0x28, 0xe2, 0x82]));
		out.push(Buffer.from(p, "utf8"));
	});
	process.stdout.write(Buffer.concat(out));
};
await server.connect(transport);
if (churn)
	setInterval(() => {
		generation++;
		server.sendToolListChanged().catch(() => {});
	}, churn);
