// A server whose tool list changes on demand, for list_changed tests:
// add_tool {name} registers a tool (it echoes too), remove_tool {name} removes
// one, echo {message} echoes. Each change sends notifications/tools/list_changed.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";

const server = new McpServer({ name: "sdk-dynamic", version: "1.0.0" },
	{ capabilities: { tools: { listChanged: true } } });
const added = new Map();

const echo = async ({ message }) => ({ content: [{ type: "text", text: String(message) }] });

server.registerTool("echo", {
	description: "Echo the message back.",
	inputSchema: { message: z.string() },
}, echo);

server.registerTool("add_tool", {
	description: "Add a tool named NAME that echoes; sends tools/list_changed.",
	inputSchema: { name: z.string() },
}, async ({ name }) => {
	if (added.has(name))
		return { content: [{ type: "text", text: `${name} exists` }], isError: true };
	added.set(name, server.registerTool(name, {
		description: `Added at run time: echoes its message.`,
		inputSchema: { message: z.string() },
	}, echo));
	return { content: [{ type: "text", text: `added ${name}` }] };
});

server.registerTool("remove_tool", {
	description: "Remove a tool added with add_tool; sends tools/list_changed.",
	inputSchema: { name: z.string() },
}, async ({ name }) => {
	const t = added.get(name);
	if (!t)
		return { content: [{ type: "text", text: `no tool ${name}` }], isError: true };
	t.remove();
	added.delete(name);
	return { content: [{ type: "text", text: `removed ${name}` }] };
});

await server.connect(new StdioServerTransport());
