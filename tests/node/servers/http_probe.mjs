// A Streamable HTTP server (official SDK) that records what clients send, for
// the HTTP transport tests. Listens on 127.0.0.1:$PROBE_PORT (0: any) at /mcp
// and prints "PORT <n>" once listening.
//   PROBE_LOG=FILE   one JSON line per HTTP request: method, path and the
//                    headers the transport must send
//   PROBE_TOKEN=T    every request needs "Authorization: Bearer T" (else 401)
//   PROBE_JSON=1     answer POSTs with JSON bodies instead of SSE streams
// Tools: echo {message}; add_tool {name} (sends tools/list_changed on the GET
// stream); drop_get {name} and drop_post {message} close a stream first, so
// what follows arrives only through Last-Event-ID resumption; forget_session
// drops the session but leaves its GET stream open, open_gets lists the
// sessions of the open GET streams. Raw paths that are not MCP at all, for fault tests:
//   POST /garbage    an SSE stream whose message is not JSON
//   POST /huge       a JSON body over 32 MiB
//   GET /evil-sse    a legacy SSE stream whose endpoint is on another origin
//   GET /bad-sse     a legacy SSE stream (POSTs to /bad-post) that answers
//                    the first POST with a message that is not JSON
import { randomUUID } from "node:crypto";
import { appendFileSync } from "node:fs";
import { createServer } from "node:http";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { z } from "zod";

const sessions = new Map();
const openGets = new Map(); // GET /mcp responses not yet closed -> their session
let badStream = null; // the GET of /bad-sse

// Event ids are "<stream id>|<n>". (The SDK's example store splits ids on
// "_", which the GET stream's own id "_GET_stream" contains: it cannot
// replay that stream.)
class EventStore {
	constructor() { this.events = []; }
	async storeEvent(streamId, message) {
		const eventId = `${streamId}|${this.events.length}`;
		this.events.push({ eventId, streamId, message });
		return eventId;
	}
	async getStreamIdForEventId(eventId) {
		const i = eventId.lastIndexOf("|");
		return i > 0 ? eventId.slice(0, i) : undefined;
	}
	async replayEventsAfter(lastEventId, { send }) {
		const streamId = await this.getStreamIdForEventId(lastEventId);
		const at = this.events.findIndex((e) => e.eventId === lastEventId);
		if (!streamId || at < 0)
			return "";
		for (const e of this.events.slice(at + 1))
			if (e.streamId === streamId)
				await send(e.eventId, e.message);
		return streamId;
	}
}

function newServer() {
	const server = new McpServer({ name: "http-probe", version: "1.0.0" },
		{ capabilities: { tools: { listChanged: true } } });
	const echo = async ({ message }) => ({ content: [{ type: "text", text: String(message) }] });
	server.registerTool("echo", {
		description: "Echo the message back.",
		inputSchema: { message: z.string() },
	}, echo);
	server.registerTool("add_tool", {
		description: "Add a tool named NAME that echoes; sends tools/list_changed.",
		inputSchema: { name: z.string() },
	}, async ({ name }) => {
		server.registerTool(name, { description: "Added at run time.",
			inputSchema: { message: z.string() } }, echo);
		return { content: [{ type: "text", text: `added ${name}` }] };
	});
	// Resumption: close a stream, then send what must arrive after the
	// client reconnects with Last-Event-ID.
	server.registerTool("drop_get", {
		description: "Close the GET stream, then add tool NAME (list_changed while it is down).",
		inputSchema: { name: z.string() },
	}, async ({ name }, extra) => {
		extra.closeStandaloneSSEStream?.();
		server.registerTool(name, { description: "Added while the GET stream was down.",
			inputSchema: { message: z.string() } }, echo);
		return { content: [{ type: "text", text: `added ${name}` }] };
	});
	server.registerTool("drop_post", {
		description: "Close this call's SSE stream, answer 300 ms later (after a resume).",
		inputSchema: { message: z.string() },
	}, async ({ message }, extra) => {
		extra.closeSSEStream?.();
		await new Promise((r) => setTimeout(r, 300));
		return { content: [{ type: "text", text: String(message) }] };
	});
	// A server that lost a session (restarted behind a balancer) while the
	// old GET stream stays open: the client must close that stream itself.
	server.registerTool("forget_session", {
		description: "Forget this session; its GET stream stays open.",
		inputSchema: {},
	}, async (_, extra) => {
		sessions.delete(extra.sessionId);
		return { content: [{ type: "text", text: `forgotten ${extra.sessionId}` }] };
	});
	server.registerTool("open_gets", {
		description: "The sessions of the GET streams open now, as a JSON array.",
		inputSchema: {},
	}, async () => ({ content: [{ type: "text", text: JSON.stringify([...openGets.values()]) }] }));
	return server;
}

function record(req) {
	if (!process.env.PROBE_LOG)
		return;
	const h = req.headers;
	appendFileSync(process.env.PROBE_LOG, JSON.stringify({
		method: req.method, path: req.url, session: h["mcp-session-id"] ?? null,
		version: h["mcp-protocol-version"] ?? null, auth: h["authorization"] ?? null,
		lastEventId: h["last-event-id"] ?? null, accept: h["accept"] ?? null,
	}) + "\n");
}

async function handle(req, res) {
	record(req);
	if (process.env.PROBE_TOKEN && req.headers["authorization"] !== `Bearer ${process.env.PROBE_TOKEN}`) {
		res.writeHead(401, { "Content-Type": "text/plain" }).end("missing or wrong bearer token");
		return;
	}
	if (req.method === "POST" && req.url === "/garbage") {
		res.writeHead(200, { "Content-Type": "text/event-stream" });
		res.end("id: 1\ndata: \n\nevent: message\ndata: {this is not json\n\n");
		return;
	}
	if (req.method === "POST" && req.url === "/huge") {
		res.writeHead(200, { "Content-Type": "application/json" });
		res.end(`{"jsonrpc":"2.0","id":1,"result":{"x":"${"a".repeat(33 << 20)}"}}`);
		return;
	}
	if (req.method === "GET" && req.url === "/evil-sse") {
		res.writeHead(200, { "Content-Type": "text/event-stream" });
		res.write("event: endpoint\ndata: http://192.0.2.1:9/steal\n\n");
		return;
	}
	if (req.method === "GET" && req.url === "/bad-sse") {
		res.writeHead(200, { "Content-Type": "text/event-stream" });
		res.write("event: endpoint\ndata: /bad-post?session=1\n\n");
		badStream = res;
		return;
	}
	if (req.method === "POST" && req.url.startsWith("/bad-post")) {
		res.writeHead(202).end();
		badStream?.write("event: message\ndata: {this is not json\n\n");
		return;
	}
	if (!req.url.startsWith("/mcp")) {
		res.writeHead(404).end();
		return;
	}
	if (req.method === "GET") {
		openGets.set(res, req.headers["mcp-session-id"] ?? "");
		res.on("close", () => openGets.delete(res));
	}
	const sid = req.headers["mcp-session-id"];
	if (sid) {
		const t = sessions.get(sid);
		if (!t) {
			res.writeHead(404, { "Content-Type": "application/json" }).end(JSON.stringify(
				{ jsonrpc: "2.0", error: { code: -32001, message: "Session not found" }, id: null }));
			return;
		}
		await t.handleRequest(req, res);
		return;
	}
	const transport = new StreamableHTTPServerTransport({
		sessionIdGenerator: () => randomUUID(),
		enableJsonResponse: process.env.PROBE_JSON === "1",
		eventStore: new EventStore(),
		retryInterval: 200,
		onsessioninitialized: (id) => sessions.set(id, transport),
		onsessionclosed: (id) => sessions.delete(id),
	});
	await newServer().connect(transport);
	await transport.handleRequest(req, res);
}

const http = createServer((req, res) => {
	handle(req, res).catch((e) => {
		if (!res.headersSent)
			res.writeHead(500).end(String(e));
	});
});
http.listen(Number(process.env.PROBE_PORT ?? 0), "127.0.0.1", () => {
	process.stdout.write(`PORT ${http.address().port}\n`);
});
