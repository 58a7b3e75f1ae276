// Resources and prompts driven from outside, for what server-everything does
// not do (its lists change only through its own tools, in its own session):
//   node sdk_offers.mjs STATE_DIR
// - STATE_DIR/notes.json, an object {name: text}, lists each note as the
//   text resource note://<name>; every change sends
//   notifications/resources/list_changed. note://logo.bin is a blob,
//   note://hang is never answered (STATE_DIR/cancelled.json then lists the
//   notifications/cancelled that came), and the template note://{name}
//   reads any note.
// - STATE_DIR/prompts.json, an array of prompt names, lists each beside
//   `greet` (arguments `name`, required, and `tone`); every change sends
//   notifications/prompts/list_changed.
// - STATE_DIR/broken existing: resources/list adds an item without a URI,
//   and prompts/list fails.
// - The tool `link` returns a resource_link to note://<its argument name>.
// - The tool `ask` asks the client to fill a form (elicitation/create) and
//   `sample` asks it to sample (sampling/createMessage); each returns the
//   answer as JSON text. `ask` with {"together": N} first waits (60 s at
//   most) until N calls of it are in flight, so that the requests cannot be
//   told apart by when they come.
import fs from "node:fs";
import path from "node:path";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import {
	CallToolRequestSchema, CreateMessageResultSchema, ElicitResultSchema,
	GetPromptRequestSchema, ListPromptsRequestSchema, ListResourcesRequestSchema,
	ListResourceTemplatesRequestSchema, ListToolsRequestSchema, McpError,
	ReadResourceRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";

const dir = process.argv[2];
if (!dir) {
	process.stderr.write("usage: sdk_offers.mjs STATE_DIR\n");
	process.exit(2);
}
const notesFile = path.join(dir, "notes.json");
const promptsFile = path.join(dir, "prompts.json");
const readJson = (file, dflt) => {
	try {
		return JSON.parse(fs.readFileSync(file, "utf8"));
	} catch {
		return dflt;
	}
};
let notes = readJson(notesFile, {});
let prompts = readJson(promptsFile, []);
// A PNG signature and a few bytes that are not UTF-8.
const logo = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0xff, 0x00, 0xfe]);

const server = new Server({ name: "sdk-offers", version: "1.0.0" }, {
	capabilities: {
		tools: {},
		resources: { listChanged: true },
		prompts: { listChanged: true },
	},
});

const broken = () => fs.existsSync(path.join(dir, "broken"));

server.setRequestHandler(ListResourcesRequestSchema, async () => ({
	resources: [
		...Object.keys(notes).map((n) => ({ uri: `note://${n}`, name: n, mimeType: "text/plain",
			description: `The note ${n}.` })),
		{ uri: "note://logo.bin", name: "logo", mimeType: "image/png" },
		...(broken() ? [{ name: "no uri" }] : []),
	],
}));

server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({
	resourceTemplates: [{ uriTemplate: "note://{name}", name: "Any note",
		description: "A note by its name." }],
}));

server.setRequestHandler(ReadResourceRequestSchema, async (req, extra) => {
	const uri = req.params.uri;
	if (uri === "note://hang")
		return new Promise(() => extra.signal.addEventListener("abort", () => {
			fs.writeFileSync(path.join(dir, "cancelled.json"), JSON.stringify([uri]));
		}));
	if (uri === "note://logo.bin")
		return { contents: [{ uri, mimeType: "image/png", blob: logo.toString("base64") }] };
	const name = uri.startsWith("note://") ? uri.slice("note://".length) : null;
	if (name === null || !(name in notes))
		throw new McpError(-32002, `Resource not found: ${uri}`);
	return { contents: [{ uri, mimeType: "text/plain", text: String(notes[name]) }] };
});

const greet = { name: "greet", title: "Greeting", description: "Greet someone. In a tone.",
	arguments: [{ name: "name", description: "Who to greet.", required: true },
		{ name: "tone", description: "How." }] };

server.setRequestHandler(ListPromptsRequestSchema, async () => {
	if (broken())
		throw new McpError(-32603, "the prompt store is down");
	return { prompts: [greet, ...prompts.map((n) => ({ name: n,
		description: `Added at run time: ${n}.` }))] };
});

server.setRequestHandler(GetPromptRequestSchema, async (req) => {
	const args = req.params.arguments || {};
	if (req.params.name === "greet") {
		if (!args.name)
			throw new McpError(-32602, "greet needs the argument name");
		return { description: "A greeting", messages: [{ role: "user", content: {
			type: "text", text: `Greet ${args.name}${args.tone ? `, ${args.tone}` : ""}.` } }] };
	}
	if (prompts.includes(req.params.name))
		return { messages: [{ role: "user", content: { type: "text", text: req.params.name } }] };
	throw new McpError(-32602, `Unknown prompt: ${req.params.name}`);
});

const obj = (props = {}) => ({ type: "object", properties: props });
let asking = 0;
let waiting = [];
const together = (n) => {
	asking++;
	if (asking >= n) {
		waiting.forEach((go) => go());
		waiting = [];
		return Promise.resolve();
	}
	return new Promise((go) => {
		waiting.push(go);
		setTimeout(go, 60000);
	});
};
server.setRequestHandler(ListToolsRequestSchema, async () => ({
	tools: [
		{ name: "link", description: "A link to a note.",
			inputSchema: obj({ name: { type: "string" } }) },
		{ name: "ask", description: "Ask the user for a colour.",
			inputSchema: obj({ together: { type: "integer" } }) },
		{ name: "sample", description: "Ask the client's model.",
			inputSchema: obj({ prompt: { type: "string" } }) },
	],
}));

server.setRequestHandler(CallToolRequestSchema, async (req) => {
	const args = req.params.arguments || {};
	const json = (v) => ({ content: [{ type: "text", text: JSON.stringify(v) }] });
	switch (req.params.name) {
	case "link":
		return { content: [{ type: "text", text: "here:" }, { type: "resource_link",
			uri: `note://${args.name}`, name: String(args.name), mimeType: "text/plain" }] };
	case "ask":
		await together(Number(args.together || 1));
		try {
			return json(await server.request({ method: "elicitation/create", params: {
				message: "Which colour?", requestedSchema: { type: "object",
					properties: { colour: { type: "string", description: "A colour." } },
					required: ["colour"] } } }, ElicitResultSchema, { timeout: 600000 }));
		} finally {
			asking--;
		}
	case "sample":
		return json(await server.request({ method: "sampling/createMessage", params: {
			messages: [{ role: "user", content: { type: "text", text: String(args.prompt) } }],
			maxTokens: 50 } }, CreateMessageResultSchema, { timeout: 600000 }));
	default:
		throw new McpError(-32602, `Unknown tool: ${req.params.name}`);
	}
});

await server.connect(new StdioServerTransport());
process.stdin.on("end", () => process.exit(0));

// Poll rather than fs.watch: tests rewrite the files by rename.
fs.watchFile(notesFile, { interval: 50 }, () => {
	const next = readJson(notesFile, {});
	if (JSON.stringify(next) === JSON.stringify(notes))
		return;
	notes = next;
	server.sendResourceListChanged().catch(() => {});
});
fs.watchFile(promptsFile, { interval: 50 }, () => {
	const next = readJson(promptsFile, []);
	if (JSON.stringify(next) === JSON.stringify(prompts))
		return;
	prompts = next;
	server.sendPromptListChanged().catch(() => {});
});
