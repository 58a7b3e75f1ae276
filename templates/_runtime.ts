/**
 * The client side of the mcpfs bridge, used by every generated tool file.
 *
 * Node built-ins only. The bridge is a unix socket whose path is in
 * $MCPFS_BRIDGE (set inside `mcpfs exec`; on your own machine start
 * `mcpfs bridge --socket PATH` and export MCPFS_BRIDGE=PATH). The protocol
 * is newline-delimited JSON-RPC 2.0: an "auth" request with
 * $MCPFS_BRIDGE_TOKEN first, then "tools/call", "tools/search",
 * "resources/read", "prompts/get", "checkpoint/set" and "checkpoint/get". One connection carries every call; replies are matched
 * to their promises by id, so calls may run concurrently.
 *
 * It type-checks without @types/node: the little it uses of Node (a unix
 * socket from node:net, the environment) is typed here, and node:net is
 * imported when the first call connects.
 */

const MAX_LINE = 16 << 20;

/** What this file uses of a node:net Socket. */
interface NodeSocket {
	setEncoding(encoding: "utf8"): unknown;
	on(event: "data", listener: (chunk: string) => void): unknown;
	on(event: "error", listener: (err: Error) => void): unknown;
	on(event: "close", listener: () => void): unknown;
	ref(): unknown;
	unref(): unknown;
	write(data: string): unknown;
	destroy(): unknown;
}

/** What this file uses of node:net. */
interface NodeNet {
	createConnection(path: string): NodeSocket;
}

/* Not a literal in import(): a type checker without Node's types would look
 * for the module's declarations. */
const NODE_NET = "node:net";

/** A variable of the environment, without Node's types for process. */
function env(name: string): string | undefined {
	const g = globalThis as unknown as { process?: { env?: Record<string, string | undefined> } };
	return g.process?.env?.[name];
}

/** The bridge could not be reached, or it refused the request. */
export class McpBridgeError extends Error {
	constructor(message: string) {
		super(message);
		this.name = "McpBridgeError";
	}
}

/** One item of an MCP result's content list. */
export interface McpContent {
	type: string;
	text?: string;
	data?: string;
	mimeType?: string;
	[key: string]: unknown;
}

/** A tool answered with isError: the message is its text content. */
export class McpToolError extends Error {
	readonly server: string;
	readonly tool: string;
	readonly content: McpContent[];

	constructor(server: string, tool: string, content: McpContent[]) {
		const text = content
			.filter((c) => c.type === "text")
			.map((c) => String(c.text ?? ""))
			.join("\n");
		super(`${server}/${tool}: ${text || "the tool reported an error"}`);
		this.name = "McpToolError";
		this.server = server;
		this.tool = tool;
		this.content = content;
	}
}

interface Pending {
	method: string;
	resolve: (value: unknown) => void;
	reject: (err: Error) => void;
}

interface Reply {
	id?: unknown;
	method?: unknown;
	params?: Record<string, unknown>;
	result?: unknown;
	error?: { message?: unknown };
}

/** The progress of one tool call: what onProgress's handler gets. */
export interface McpProgress {
	server: string;
	tool: string;
	progress: number;
	total?: number;
	message?: string;
}

let progressHandler: ((p: McpProgress) => void) | null = null;

/**
 * Have `handler` called with the progress of every tool call this program
 * makes from now on (null: no longer): the server's progress notifications
 * and a task's status messages. Exceptions it throws are printed and
 * ignored; progress may be dropped, never the result.
 */
export function onProgress(handler: ((p: McpProgress) => void) | null): void {
	progressHandler = handler;
}

class Connection {
	private readonly sock: NodeSocket;
	private readonly pending = new Map<number, Pending>();
	private nextId = 1;
	private buffered = "";
	private closedWhy: string | null = null;
	readonly ready: Promise<unknown>;

	constructor(net: NodeNet, path: string) {
		this.sock = net.createConnection(path);
		this.sock.setEncoding("utf8");
		this.sock.on("data", (chunk: string) => this.onData(chunk));
		this.sock.on("error", (e: Error) => this.fail(`connect(${path}): ${e.message}`));
		this.sock.on("close", () => this.fail("the bridge closed the connection"));
		this.ready = this.send("auth", { token: env("MCPFS_BRIDGE_TOKEN") ?? "" }, 0);
	}

	get closed(): boolean {
		return this.closedWhy !== null;
	}

	send(method: string, params: object, id?: number): Promise<unknown> {
		if (this.closedWhy !== null)
			return Promise.reject(new McpBridgeError(`${method}: ${this.closedWhy}`));
		const rid = id ?? this.nextId++;
		const line = JSON.stringify({ jsonrpc: "2.0", id: rid, method, params }) + "\n";
		return new Promise((resolve, reject) => {
			this.pending.set(rid, { method, resolve, reject });
			// Keep the process alive only while a reply is awaited.
			this.sock.ref();
			this.sock.write(line);
		});
	}

	private onData(chunk: string): void {
		this.buffered += chunk;
		if (this.buffered.length > MAX_LINE && !this.buffered.includes("\n")) {
			this.fail(`reply longer than ${MAX_LINE} bytes`);
			this.sock.destroy();
			return;
		}
		let nl: number;
		while ((nl = this.buffered.indexOf("\n")) >= 0) {
			const line = this.buffered.slice(0, nl);
			this.buffered = this.buffered.slice(nl + 1);
			if (line.trim()) this.onLine(line);
		}
	}

	private onLine(line: string): void {
		let msg: Reply;
		try {
			msg = JSON.parse(line) as Reply;
		} catch {
			return;
		}
		if (typeof msg !== "object" || msg === null) return;
		if (msg.method === "notifications/progress" && msg.params && progressHandler) {
			const { id: _id, ...p } = msg.params;
			try {
				progressHandler(p as unknown as McpProgress);
			} catch (e) {
				console.error(e);
			}
			return;
		}
		if (typeof msg.id !== "number") return;
		const p = this.pending.get(msg.id);
		if (!p) return;
		this.pending.delete(msg.id);
		if (this.pending.size === 0) this.sock.unref();
		if (msg.error !== undefined) {
			const text = typeof msg.error?.message === "string" ? msg.error.message : "error";
			p.reject(new McpBridgeError(`${p.method}: ${text}`));
		} else {
			p.resolve(msg.result);
		}
	}

	private fail(why: string): void {
		if (this.closedWhy === null) this.closedWhy = why;
		for (const p of this.pending.values())
			p.reject(new McpBridgeError(`${p.method}: ${why}`));
		this.pending.clear();
	}
}

let conn: Connection | null = null;
let netModule: Promise<NodeNet> | null = null;

async function request(method: string, params: object): Promise<unknown> {
	if (conn === null || conn.closed) {
		const path = env("MCPFS_BRIDGE") ?? "";
		if (!path)
			throw new McpBridgeError(
				"MCPFS_BRIDGE is not set: run `mcpfs bridge --socket PATH` and " +
					"`export MCPFS_BRIDGE=PATH` (inside `mcpfs exec` it is set for you)",
			);
		netModule ??= import(NODE_NET) as Promise<NodeNet>;
		const net = await netModule;
		// Another call may have connected while this one waited.
		if (conn === null || conn.closed) conn = new Connection(net, path);
	}
	const c = conn;
	await c.ready;
	return c.send(method, params);
}

function item(c: McpContent): unknown {
	if (c.type !== "text") return c;
	const text = String(c.text ?? "");
	const head = text.trimStart().charAt(0);
	if (head === "{" || head === "[") {
		try {
			return JSON.parse(text) as unknown;
		} catch {
			return text;
		}
	}
	return text;
}

function contentOf(result: Record<string, unknown>): McpContent[] {
	const list = Array.isArray(result.content) ? (result.content as unknown[]) : [];
	return list.filter((c): c is McpContent => typeof c === "object" && c !== null);
}

/**
 * Call tool `name` (its MCP name) of `server` (its configured name).
 * Resolves to the simplified result (root README.md, "Results"); rejects
 * with McpToolError when the tool reports an error, McpBridgeError when the
 * bridge cannot be reached.
 */
export async function callTool(server: string, name: string, args: object = {}): Promise<unknown> {
	const result = await request("tools/call", { server, name, arguments: args });
	if (typeof result !== "object" || result === null)
		throw new McpBridgeError(`tools/call ${server}/${name}: the reply is not a result object`);
	const r = result as Record<string, unknown>;
	if (r.isError === true) throw new McpToolError(server, name, contentOf(r));
	if ("structuredContent" in r) return r.structuredContent;
	const content = contentOf(r);
	if (content.length === 0) return null;
	if (content.length === 1) return item(content[0]);
	return content.map(item);
}

/** One tool searchTools found; "summary" and "full" detail add fields. */
export interface ToolMatch {
	server: string;
	tool: string;
	name: string;
	score: number;
	title?: string;
	summary?: string;
	description?: string;
	import?: string;
	signature?: string;
	args?: { name: string; type: string; required: boolean; description: string }[];
}

/**
 * The tools that fit `query` (words saying what you want done), best first;
 * an empty array means no tool fits (try other words). With `regex`, the
 * query is a regular expression matched against names, titles and
 * descriptions.
 */
export async function searchTools(
	query: string,
	options: { detail?: "name" | "summary" | "full"; limit?: number; regex?: boolean } = {},
): Promise<ToolMatch[]> {
	const r = await request("tools/search", {
		query,
		detail: options.detail ?? "summary",
		limit: options.limit ?? 5,
		regex: options.regex ?? false,
	});
	const found = typeof r === "object" && r !== null ? (r as Record<string, unknown>).results : null;
	if (!Array.isArray(found)) throw new McpBridgeError("tools/search: the reply has no results");
	return found.filter((x): x is ToolMatch => typeof x === "object" && x !== null);
}

/** The bytes of base64 @text, without Node's types for Buffer. */
function fromBase64(text: string, uri: unknown): Uint8Array {
	const g = globalThis as unknown as { atob?: (s: string) => string };
	let raw: string;
	try {
		raw = g.atob ? g.atob(text) : "";
	} catch {
		throw new McpBridgeError(`resources/read ${String(uri)}: the blob is not base64`);
	}
	const out = new Uint8Array(raw.length);
	for (let i = 0; i < raw.length; i++) out[i] = raw.charCodeAt(i);
	return out;
}

/**
 * Read resource `uri` of `server` (its configured name). The URIs are in
 * servers/<server>/_resources.md; the URI of a resource_link item in a
 * tool's result works too. Resolves to the text of a text resource, a
 * Uint8Array for a blob, and an array of those when the server sends
 * several contents (or none); rejects with McpBridgeError when the server
 * is not configured or offers no resources, the URI is not one, or the
 * server cannot read it.
 */
export async function readResource(
	server: string,
	uri: string,
): Promise<string | Uint8Array | (string | Uint8Array)[]> {
	const r = await request("resources/read", { server, uri });
	if (typeof r !== "object" || r === null)
		throw new McpBridgeError(`resources/read ${server} ${uri}: the reply is not a result object`);
	const list = (r as Record<string, unknown>).contents;
	const contents = (Array.isArray(list) ? (list as unknown[]) : [])
		.filter((c): c is Record<string, unknown> => typeof c === "object" && c !== null)
		.map((c) =>
			typeof c.blob === "string" ? fromBase64(c.blob, c.uri) : String(c.text ?? ""),
		);
	return contents.length === 1 ? contents[0] : contents;
}

/** One message of a prompt: a role and one MCP content item. */
export interface PromptMessage {
	role: string;
	content: McpContent;
}

/**
 * Prompt `name` of `server` (its configured name) with its arguments
 * filled in (servers/<server>/_prompts.md lists them). Resolves to the
 * prompt's messages as MCP sends them; rejects as readResource does.
 */
export async function getPrompt(
	server: string,
	name: string,
	args: Record<string, string> = {},
): Promise<PromptMessage[]> {
	const r = await request("prompts/get", { server, name, arguments: args });
	if (typeof r !== "object" || r === null)
		throw new McpBridgeError(`prompts/get ${server}/${name}: the reply is not a result object`);
	const list = (r as Record<string, unknown>).messages;
	return (Array.isArray(list) ? (list as unknown[]) : []).filter(
		(m): m is PromptMessage => typeof m === "object" && m !== null,
	);
}

/** Record where a session is, so a later run can resume from it. */
export async function setCheckpoint(
	step: number,
	lastTask: string,
	context: Record<string, unknown> = {},
): Promise<void> {
	await request("checkpoint/set", { step, last_task: lastTask, context });
}

/** The session's last checkpoint, or null. */
export async function getCheckpoint(): Promise<Record<string, unknown> | null> {
	const r = await request("checkpoint/get", {});
	return typeof r === "object" && r !== null ? (r as Record<string, unknown>) : null;
}
