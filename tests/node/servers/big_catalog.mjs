// An MCP server (the SDK's) with a generated catalog of any size, for the
// scale benches (bench/tree_scale.py):
//   node big_server.mjs TOOLS [PAGE_SIZE]
// TOOLS tools named <area>_<verb>_<n> over 20 areas and 8 verbs, each with a
// description and a three-property schema (~720 bytes on the wire, as the catalogs), listed
// PAGE_SIZE per tools/list page (default: all on one page); every call echoes.
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const total = Number(process.argv[2] || 0);
const pageSize = Number(process.argv[3] || 0) || total || 1;
const areas = ["billing", "calendar", "contacts", "crm", "docs", "drive", "email", "finance",
	"github", "hr", "inventory", "issues", "maps", "marketing", "orders", "payments", "search",
	"shipping", "support", "wiki"];
const verbs = ["create", "delete", "export", "get", "list", "search", "sync", "update"];

const tool = (i) => {
	const area = areas[i % areas.length], verb = verbs[Math.floor(i / areas.length) % verbs.length];
	const n = String(i).padStart(6, "0");
	return {
		name: `${area}_${verb}_${n}`,
		description: `${verb[0].toUpperCase()}${verb.slice(1)} one ${area} record (variant ${n}). ` +
			"Takes the record's id and an optional note kept with the change; returns the " +
			"record as JSON with its fields, owner, timestamps and links. Fails when the id " +
			"is unknown or the caller may not see the record. Use the list or search tools of " +
			"the same area first to find a record's id.",
		inputSchema: {
			type: "object",
			properties: {
				id: { type: "string", description: "The record's id, as returned by list or search." },
				note: { type: "string", description: "A note kept with the change, shown in the record's history." },
				limit: { type: "number", description: "At most this many results (1 to 100, default 20)." },
			},
			required: ["id"],
		},
	};
};

const server = new Server({ name: "big", version: "1.0.0" }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, async (req) => {
	const start = Number(req.params?.cursor || 0);
	const end = Math.min(total, start + pageSize);
	const tools = [];
	for (let i = start; i < end; i++)
		tools.push(tool(i));
	return { tools, ...(end < total ? { nextCursor: String(end) } : {}) };
});
server.setRequestHandler(CallToolRequestSchema, async (req) => ({
	content: [{ type: "text", text: JSON.stringify(req.params.arguments ?? {}) }],
}));
await server.connect(new StdioServerTransport());
