// A server driven from outside, for the mount tests (the mount's own server
// instance cannot be reached with `mcpfs call`):
//   node sdk_mount_dynamic.mjs STATE_DIR [SYNTHETIC_COUNT]
// - STATE_DIR/tools.json, a JSON array of tool names, lists the tools beside
//   `echo`; every change to it sends notifications/tools/list_changed.
// - STATE_DIR/down existing at start: the server says so on stderr and exits 3
//   (a server that cannot start, for failure tests).
// - SYNTHETIC_COUNT adds that many generated tools (tool_00000 ...) with a
//   small schema each, for the 10,000-tool benchmark.
import fs from "node:fs";
import path from "node:path";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const dir = process.argv[2];
const synthetic = Number(process.argv[3] || 0);
if (!dir) {
	process.stderr.write("usage: sdk_mount_dynamic.mjs STATE_DIR [SYNTHETIC_COUNT]\n");
	process.exit(2);
}
if (fs.existsSync(path.join(dir, "down"))) {
	process.stderr.write("sdk_mount_dynamic: the down flag is set; refusing to start\n");
	process.exit(3);
}

const messageSchema = {
	type: "object",
	properties: { message: { type: "string", description: "What to echo." } },
	required: ["message"],
};
const tool = (name, description) => ({ name, description, inputSchema: messageSchema });

const base = [tool("echo", "Echo the message back.")];
for (let i = 0; i < synthetic; i++) {
	const n = String(i).padStart(5, "0");
	base.push({
		name: `tool_${n}`,
		description: `Synthetic tool ${n}: adds two numbers and echoes a label.`,
		inputSchema: {
			type: "object",
			properties: {
				a: { type: "number", description: "First addend." },
				b: { type: "number", description: "Second addend." },
				label: { type: "string", description: "Echoed back." },
			},
			required: ["a", "b"],
		},
	});
}

const toolsFile = path.join(dir, "tools.json");
let extra = [];
const readExtra = () => {
	try {
		const names = JSON.parse(fs.readFileSync(toolsFile, "utf8"));
		return Array.isArray(names) ? names.filter((n) => typeof n === "string") : [];
	} catch {
		return [];
	}
};
extra = readExtra();

const server = new Server({ name: "sdk-mount-dynamic", version: "1.0.0" },
	{ capabilities: { tools: { listChanged: true } } });

server.setRequestHandler(ListToolsRequestSchema, async () => ({
	tools: [...base, ...extra.map((n) => tool(n, `Added at run time: ${n}.`))],
}));

server.setRequestHandler(CallToolRequestSchema, async (req) => {
	const args = req.params.arguments || {};
	return { content: [{ type: "text", text: String(args.message ?? args.label ?? "") }] };
});

await server.connect(new StdioServerTransport());
// The file poll below keeps node alive: leave when the client closes stdin.
process.stdin.on("end", () => process.exit(0));

// Poll rather than fs.watch: tests rewrite the file by rename, which some
// watchers miss.
fs.watchFile(toolsFile, { interval: 50 }, () => {
	const next = readExtra();
	if (JSON.stringify(next) === JSON.stringify(extra))
		return;
	extra = next;
	server.sendToolListChanged().catch(() => {});
});
