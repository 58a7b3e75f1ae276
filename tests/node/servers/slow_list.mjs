// A server with one tool whose tools/list answers only after --delay S
// seconds (default 3): a slow start, as a new user's first listing is, for
// the progress shown on a terminal.
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const i = process.argv.indexOf("--delay");
const delayMs = 1000 * Number(i >= 0 ? process.argv[i + 1] : "3");
const server = new Server({ name: "slow-list", version: "1.0.0" }, { capabilities: { tools: {} } });

server.setRequestHandler(ListToolsRequestSchema, async () => {
	await new Promise((resolve) => setTimeout(resolve, delayMs));
	return { tools: [{ name: "ping", description: "Answer pong.",
		inputSchema: { type: "object", properties: {} } }] };
});
server.setRequestHandler(CallToolRequestSchema, async () =>
	({ content: [{ type: "text", text: "pong" }] }));
await server.connect(new StdioServerTransport());
