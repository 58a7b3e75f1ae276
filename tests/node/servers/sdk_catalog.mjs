// A server that lists a recorded catalog, for the search tests:
//   node sdk_catalog.mjs CATALOG.json
// CATALOG.json is a tools/list result's array of Tool objects (the files in
// shared/catalog), listed as they are; a call answers with its arguments.
import fs from "node:fs";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const file = process.argv[2];
if (!file) {
	process.stderr.write("usage: sdk_catalog.mjs CATALOG.json\n");
	process.exit(2);
}
const tools = JSON.parse(fs.readFileSync(file, "utf8"));
const server = new Server({ name: "sdk-catalog", version: "1.0.0" }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }));
server.setRequestHandler(CallToolRequestSchema, async (req) => ({
	content: [{ type: "text", text: JSON.stringify(req.params.arguments || {}) }],
}));
await server.connect(new StdioServerTransport());
