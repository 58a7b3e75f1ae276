// An MCP server behind OAuth with an authorization server of its own, in one
// process, for the OAuth tests (servers/oauth*.c). Listens on
// 127.0.0.1:$PORT: the MCP endpoint /mcp (official SDK, stateless) needs a
// bearer token this server issued; /.well-known/oauth-protected-resource/mcp
// names this server as its authorization server, which offers RFC 8414
// metadata, dynamic registration, authorization code with PKCE S256 (the
// authorization endpoint approves at once and redirects, as a browser whose
// user clicked "allow") and refresh tokens that rotate: a refresh token works
// once, and a second use is refused (invalid_grant) and counted. The tool
// "admin" needs the scope "admin": without it, HTTP 403 insufficient_scope
// (a step-up).
//   OAUTH_EXPIRES_IN=S   lifetime of the tokens a login gets (default 3600);
//                        refreshed ones last an hour, so a test on a slow
//                        machine never sees one expire again
//   OAUTH_REFRESH_DELAY_MS=N  a refresh is answered after N ms, or at once
//                        when POST /_release comes (so a test decides when
//                        the refreshes it started are all in flight)
//   OAUTH_MODE=          bad_metadata: the authorization server metadata is
//                        not JSON; bad_issuer: its issuer is another URL;
//                        wrong_state: the redirect carries another state;
//                        no_pkce: the metadata offers no S256;
//                        wrong_iss: the redirect names another issuer (RFC 9207:
//                        it always names one, and the metadata says so);
//                        hang_token: the token endpoint never answers;
//                        no_registration: neither dynamic registration nor
//                        client ID metadata documents
// Test hooks: GET /_stats (counts of requests by kind; refresh_inflight,
// refreshes being answered now), POST /_revoke (every token and refresh token
// stops working), POST /_expire (every access token expires now, ahead of
// what its expires_in said; refresh tokens still work), POST /_release (see
// OAUTH_REFRESH_DELAY_MS).
import { createHash, randomBytes } from "node:crypto";
import { createServer } from "node:http";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { z } from "zod";

const mode = process.env.OAUTH_MODE ?? "";
const expiresIn = Number(process.env.OAUTH_EXPIRES_IN ?? 3600);
const refreshDelay = Number(process.env.OAUTH_REFRESH_DELAY_MS ?? 0);
const stats = { register: 0, authorize: 0, code: 0, refresh: 0, refresh_reused: 0, mcp_401: 0,
	mcp_403: 0, mcp_get: 0, refresh_inflight: 0, scopes: [] };
let releases = []; // resolve functions of the refreshes being held
const clients = new Map(); // client_id -> registration
const codes = new Map(); // code -> {client_id, challenge, redirect_uri, resource, scope}
const tokens = new Map(); // access token -> {serial, expires}
const refreshTokens = new Map(); // refresh token -> {client_id, resource, used}
let serial = 0;
let base = "";

const rand = () => randomBytes(24).toString("base64url");
const json = (res, status, body, headers = {}) =>
	res.writeHead(status, { "Content-Type": "application/json", ...headers }).end(JSON.stringify(body));

function issue(res, client_id, resource, scope, lifetime) {
	const access = rand(), refresh = rand();
	tokens.set(access, { serial: ++serial, expires: Date.now() + lifetime * 1000, scope });
	refreshTokens.set(refresh, { client_id, resource, scope, used: false });
	json(res, 200, { access_token: access, token_type: "Bearer", expires_in: lifetime,
		refresh_token: refresh, scope });
}

async function body(req) {
	const chunks = [];
	for await (const c of req)
		chunks.push(c);
	return Buffer.concat(chunks).toString();
}

function metadata(res) {
	if (mode === "bad_metadata")
		return res.writeHead(200, { "Content-Type": "application/json" }).end("<html>not json");
	json(res, 200, {
		issuer: mode === "bad_issuer" ? "http://127.0.0.1:1/elsewhere" : base,
		authorization_endpoint: `${base}/authorize`,
		token_endpoint: `${base}/token`,
		...(mode === "no_registration" ? {} : { registration_endpoint: `${base}/register` }),
		response_types_supported: ["code"],
		grant_types_supported: ["authorization_code", "refresh_token"],
		authorization_response_iss_parameter_supported: true,
		code_challenge_methods_supported: mode === "no_pkce" ? ["plain"] : ["S256"],
		token_endpoint_auth_methods_supported: ["none"],
		scopes_supported: ["mcp"],
	});
}

function authorize(res, q) {
	stats.authorize++;
	stats.scopes.push(q.get("scope") ?? "");
	const redirect = q.get("redirect_uri") ?? "";
	const client = clients.get(q.get("client_id"));
	// RFC 8252 7.3: any port on the loopback host the client registered.
	if (!client || !/^http:\/\/127\.0\.0\.1:\d+\/callback$/.test(redirect))
		return json(res, 400, { error: "invalid_request", error_description: "client or redirect" });
	if (q.get("code_challenge_method") !== "S256" || !q.get("code_challenge") || !q.get("resource"))
		return json(res, 400, { error: "invalid_request", error_description: "PKCE and resource" });
	const code = rand();
	codes.set(code, { client_id: q.get("client_id"), challenge: q.get("code_challenge"),
		redirect_uri: redirect, resource: q.get("resource"), scope: q.get("scope") ?? "" });
	const to = new URL(redirect);
	to.searchParams.set("code", code);
	to.searchParams.set("state", mode === "wrong_state" ? "forged" : q.get("state") ?? "");
	to.searchParams.set("iss", mode === "wrong_iss" ? "http://127.0.0.1:1/evil" : base);
	res.writeHead(302, { Location: to.toString() }).end();
}

async function token(res, f) {
	if (mode === "hang_token")
		return; // never answered
	if (f.get("grant_type") === "authorization_code") {
		stats.code++;
		const c = codes.get(f.get("code") ?? "");
		codes.delete(f.get("code") ?? "");
		const verifier = f.get("code_verifier") ?? "";
		const challenge = createHash("sha256").update(verifier).digest("base64url");
		if (!c || c.client_id !== f.get("client_id") || c.redirect_uri !== f.get("redirect_uri") ||
		    c.resource !== f.get("resource") || c.challenge !== challenge)
			return json(res, 400, { error: "invalid_grant", error_description: "code, PKCE or resource" });
		return issue(res, c.client_id, c.resource, c.scope, expiresIn);
	}
	if (f.get("grant_type") === "refresh_token") {
		stats.refresh++;
		if (refreshDelay > 0) {
			stats.refresh_inflight++;
			await new Promise((done) => {
				const t = setTimeout(done, refreshDelay);
				releases.push(() => { clearTimeout(t); done(); });
			});
			stats.refresh_inflight--;
		}
		const r = refreshTokens.get(f.get("refresh_token") ?? "");
		if (r && r.used)
			stats.refresh_reused++;
		if (!r || r.used || r.client_id !== f.get("client_id"))
			return json(res, 400, { error: "invalid_grant", error_description: "refresh token not valid" });
		r.used = true; // rotation: each refresh token works once
		return issue(res, r.client_id, r.resource, r.scope, 3600);
	}
	json(res, 400, { error: "unsupported_grant_type" });
}

function mcpServer(tok) {
	const server = new McpServer({ name: "oauth-test", version: "1.0.0" });
	server.registerTool("whoami", { description: "Which token this call carried." },
		async () => ({ content: [{ type: "text", text: `token ${tok.serial}` }] }));
	server.registerTool("admin", { description: "Needs the scope admin." },
		async () => ({ content: [{ type: "text", text: `admin with token ${tok.serial}` }] }));
	server.registerTool("echo", { description: "Echo the message back.",
		inputSchema: { message: z.string() } },
		async ({ message }) => ({ content: [{ type: "text", text: message }] }));
	return server;
}

async function mcp(req, res) {
	if (req.method === "GET")
		stats.mcp_get++;
	const auth = req.headers.authorization ?? "";
	const tok = auth.startsWith("Bearer ") ? tokens.get(auth.slice(7)) : undefined;
	const prm = `resource_metadata="${base}/.well-known/oauth-protected-resource/mcp"`;
	if (!tok || tok.expires < Date.now()) {
		stats.mcp_401++;
		const err = auth ? ', error="invalid_token"' : "";
		res.writeHead(401, { "WWW-Authenticate": `Bearer ${prm}, scope="mcp"${err}` });
		return res.end();
	}
	if (req.method !== "POST")
		return res.writeHead(405).end();
	const msg = JSON.parse(await body(req));
	if (msg.method === "tools/call" && msg.params?.name === "admin" &&
	    !tok.scope.split(" ").includes("admin")) {
		stats.mcp_403++;
		res.writeHead(403, { "WWW-Authenticate":
			`Bearer error="insufficient_scope", scope="mcp admin", ${prm}` });
		return res.end();
	}
	const server = mcpServer(tok);
	const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
	res.on("close", () => { transport.close(); server.close(); });
	await server.connect(transport);
	await transport.handleRequest(req, res, msg);
}

async function handle(req, res) {
	const url = new URL(req.url, base);
	if (url.pathname === "/mcp")
		return mcp(req, res);
	if (url.pathname === "/.well-known/oauth-protected-resource/mcp")
		return json(res, 200, { resource: `${base}/mcp`, authorization_servers: [base],
			scopes_supported: ["mcp"] });
	if (url.pathname === "/.well-known/oauth-authorization-server")
		return metadata(res);
	if (url.pathname === "/register" && req.method === "POST") {
		stats.register++;
		const reg = JSON.parse(await body(req));
		const client_id = `client-${rand()}`;
		clients.set(client_id, reg);
		return json(res, 201, { ...reg, client_id, token_endpoint_auth_method: "none" });
	}
	if (url.pathname === "/authorize")
		return authorize(res, url.searchParams);
	if (url.pathname === "/token" && req.method === "POST")
		return token(res, new URLSearchParams(await body(req)));
	if (url.pathname === "/_stats")
		return json(res, 200, stats);
	if (url.pathname === "/_expire" && req.method === "POST") {
		for (const t of tokens.values())
			t.expires = 0;
		return json(res, 200, {});
	}
	if (url.pathname === "/_release" && req.method === "POST") {
		const held = releases;
		releases = [];
		held.forEach((release) => release());
		return json(res, 200, { released: held.length });
	}
	if (url.pathname === "/_revoke" && req.method === "POST") {
		tokens.clear();
		refreshTokens.clear();
		return json(res, 200, {});
	}
	res.writeHead(404).end();
}

const http = createServer((req, res) => {
	handle(req, res).catch((e) => {
		if (!res.headersSent)
			res.writeHead(500).end(String(e));
	});
});
http.listen(Number(process.env.PORT ?? 0), "127.0.0.1", () => {
	base = `http://127.0.0.1:${http.address().port}`;
	process.stdout.write(`PORT ${http.address().port}\n`);
});
