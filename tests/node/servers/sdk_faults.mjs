// A server for what the reference servers do not do: a paginated tools/list
// (--page N tools per page, --extra N filler tools), audio content, progress,
// a crash mid-call, a hang, garbage and oversized lines on stdout, a big
// result, server requests to the client (roots/list, sampling), and a record
// of cancellations.
// With --deaf it stops reading stdin once initialized, as a stuck server does.
// With --raw-version V it is no SDK server at all: it answers initialize with
// protocol version V, to test version negotiation (and with --raw-no-list
// never answers tools/list).
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import {
	CallToolRequestSchema, ListToolsRequestSchema, ListRootsResultSchema,
	CreateMessageResultSchema, ElicitResultSchema, McpError,
} from "@modelcontextprotocol/sdk/types.js";
import { createInterface } from "node:readline";

const argv = process.argv.slice(2);
const opt = (name, dflt) => {
	const i = argv.indexOf(name);
	return i >= 0 ? argv[i + 1] : dflt;
};

if (opt("--raw-version")) {
	const rl = createInterface({ input: process.stdin });
	rl.on("line", (line) => {
		const msg = JSON.parse(line);
		if (msg.method === "initialize")
			process.stdout.write(JSON.stringify({ jsonrpc: "2.0", id: msg.id, result: {
				protocolVersion: opt("--raw-version"), capabilities: { tools: {} },
				serverInfo: { name: "raw", version: "0" } } }) + "\n");
		else if (msg.method === "tools/list" && !argv.includes("--raw-no-list"))
			process.stdout.write(JSON.stringify({ jsonrpc: "2.0", id: msg.id,
				result: { tools: [] } }) + "\n");
	});
} else {
	const pageSize = Number(opt("--page", "0"));
	const extra = Number(opt("--extra", "0"));
	const cancelled = [];
	const text = (t) => ({ content: [{ type: "text", text: t }] });
	const obj = { type: "object", properties: {} };

	const tools = [
		{ name: "echo", description: "Echo message.", inputSchema: { type: "object",
			properties: { message: { type: "string" } }, required: ["message"] } },
		{ name: "audio", description: "A short WAV clip.", inputSchema: obj },
		{ name: "progress", description: "Report progress in N steps.", inputSchema: obj },
		{ name: "crash", description: "Exit mid-call.", inputSchema: obj },
		{ name: "hang", description: "Never answer.", inputSchema: obj },
		{ name: "garbage", description: "Write a non-JSON line on stdout, then answer.", inputSchema: obj },
		{ name: "oversized", description: "Write one line of MB megabytes.", inputSchema: obj },
		{ name: "big", description: "Return a text of MB megabytes.", inputSchema: obj },
		{ name: "roots", description: "Ask the client for its roots.", inputSchema: obj },
		{ name: "sample", description: "Ask the client to sample.", inputSchema: obj },
		{ name: "elicit", description: "Ask the client to fill a form (or open a URL).",
			inputSchema: obj },
		{ name: "needs_url", description: "Fail with -32042: a URL to open.", inputSchema: obj },
		{ name: "cancelled", description: "Request ids cancelled so far.", inputSchema: obj },
		{ name: "fail", description: "Return isError.", inputSchema: obj },
	];
	for (let i = 0; i < extra; i++)
		tools.push({ name: `filler_${i}`, description: `Filler ${i}.`, inputSchema: obj });

	const server = new Server({ name: "sdk-faults", version: "1.0.0" },
		{ capabilities: { tools: {} } });

	server.setRequestHandler(ListToolsRequestSchema, async (req) => {
		if (!pageSize)
			return { tools };
		const start = Number(req.params?.cursor ?? "0");
		const next = start + pageSize;
		return next < tools.length
			? { tools: tools.slice(start, next), nextCursor: String(next) }
			: { tools: tools.slice(start) };
	});

	// A 44-byte WAV header and 8 silent samples.
	const wav = Buffer.concat([Buffer.from("RIFF"), Buffer.from([44, 0, 0, 0]),
		Buffer.from("WAVEfmt "), Buffer.from([16, 0, 0, 0, 1, 0, 1, 0, 64, 31, 0, 0,
		64, 31, 0, 0, 1, 0, 8, 0]), Buffer.from("data"), Buffer.from([8, 0, 0, 0]),
		Buffer.alloc(8, 128)]);

	const handlers = {
		echo: async (a) => text(String(a.message)),
		audio: async () => ({ content: [{ type: "audio", mimeType: "audio/wav",
			data: wav.toString("base64") }] }),
		progress: async (a, extra) => {
			const steps = Number(a.steps ?? 3);
			const token = extra._meta?.progressToken;
			for (let i = 1; i <= steps; i++) {
				if (token !== undefined)
					await extra.sendNotification({ method: "notifications/progress",
						params: { progressToken: token, progress: i, total: steps,
							message: `step ${i}` } });
				await new Promise((r) => setTimeout(r, 20));
			}
			return text(token === undefined ? "no token" : `token ${token}`);
		},
		crash: async () => {
			setTimeout(() => process.exit(3), 50);
			return new Promise(() => {});
		},
		hang: async (a, extra) => new Promise(() => {
			extra.signal.addEventListener("abort", () => cancelled.push(extra.requestId));
		}),
		garbage: async () => {
			process.stdout.write("this is not json\n");
			return text("after garbage");
		},
		oversized: async (a) => {
			const mb = Number(a.mb ?? 33);
			process.stdout.write('{"jsonrpc":"2.0","method":"x","params":{"pad":"' +
				"x".repeat(mb << 20) + '"}}\n');
			return new Promise(() => {});
		},
		big: async (a) => text("x".repeat(Number(a.mb ?? 1) << 20)),
		roots: async () => {
			const r = await server.request({ method: "roots/list" }, ListRootsResultSchema);
			return text(JSON.stringify(r.roots));
		},
		sample: async () => {
			try {
				await server.request({ method: "sampling/createMessage", params: {
					messages: [], maxTokens: 1 } }, CreateMessageResultSchema);
				return text("sampled");
			} catch (e) {
				return text(`sampling refused: ${e.code} ${e.message}`);
			}
		},
		elicit: async (a) => {
			if (a.url) {
				try {
					await server.request({ method: "elicitation/create", params: {
						mode: "url", message: "open this", elicitationId: "e1",
						url: "https://consent.example.test/e1" } }, ElicitResultSchema);
					return text("url elicitation answered");
				} catch (e) {
					return text(`url elicitation refused: ${e.code}`);
				}
			}
			const r = await server.request({ method: "elicitation/create", params: {
				message: "fill this", requestedSchema: { type: "object", properties: {
					name: { type: "string", default: "Ada" },
					age: { type: "integer", default: 36 },
					ok: { type: "boolean", default: true },
					free: { type: "string" } },
				required: a.require_free ? ["name", "free"] : ["name"] } } },
				ElicitResultSchema);
			return text(JSON.stringify(r));
		},
		needs_url: async () => {
			throw new McpError(-32042, "This request requires more information.", {
				elicitations: [{ mode: "url", elicitationId: "e2", message: "consent",
					url: "https://consent.example.test/e2" }] });
		},
		cancelled: async () => text(JSON.stringify(cancelled)),
		fail: async () => ({ ...text("it failed on purpose"), isError: true }),
	};

	server.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
		const h = handlers[req.params.name] ??
			(req.params.name.startsWith("filler_") ? async () => text("filler") : null);
		if (!h)
			return { ...text(`unknown tool ${req.params.name}`), isError: true };
		return h(req.params.arguments ?? {}, extra);
	});

	if (argv.includes("--deaf"))
		server.oninitialized = () => {
			process.stdin.pause();
			setInterval(() => {}, 1 << 30); // alive, with nothing left to read
		};
	await server.connect(new StdioServerTransport());
}
