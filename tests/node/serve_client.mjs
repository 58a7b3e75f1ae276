// A client that is not ours for `mcpfs serve`: the official TypeScript SDK.
// usage: node serve_client.mjs SCENARIO (--http URL [--token T] | --stdio CMD ARG...)
// Prints one JSON object on stdout with what it saw; exit 0 unless it broke.
//   progress [CODE]  execute_code making 5 tool calls (or of CODE), with a
//              progress token: the messages as they came (wire), and the
//              progress the SDK delivered
//   cancel     execute_code of `while True: pass`, aborted at its first progress;
//              reports how long after the abort the run's task record appeared
//   many N     N sessions at once, each running code that calls a tool
//   host CODE [--no-sampling]  a host whose user fills forms and whose model
//              samples: execute_code of CODE; reports the elicitation and
//              sampling requests it answered and the run's result;
//              --approvals yes,no,...: how its user answers mcpfs's own
//              approval forms (those with an "approve" field), in turn
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CreateMessageRequestSchema, ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const argv = process.argv.slice(2);
const scenario = argv.shift();
let count = 1;
if (scenario === "many") count = Number(argv.shift());
let hostCode = null, sampling = true, approvals = [];
if (scenario === "host") hostCode = argv.shift();
let progressCode = null;
if (scenario === "progress" && argv.length && !argv[0].startsWith("--")) progressCode = argv.shift();
let url = null, token = null, command = null;
while (argv.length) {
  const a = argv.shift();
  if (a === "--no-sampling") sampling = false;
  else if (a === "--approvals") approvals = argv.shift().split(",");
  else if (a === "--http") url = argv.shift();
  else if (a === "--token") token = argv.shift();
  else if (a === "--stdio") { command = argv.splice(0); }
}

function transport() {
  if (url) {
    const headers = token ? { Authorization: `Bearer ${token}` } : {};
    return new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } });
  }
  return new StdioClientTransport({ command: command[0], args: command.slice(1),
                                    env: process.env, stderr: "inherit" });
}

async function connect() {
  const client = new Client({ name: "serve-test", version: "1.0.0" });
  await client.connect(transport());
  return client;
}

function text(result) {
  return (result.content || []).filter((c) => c.type === "text").map((c) => c.text).join("");
}

const FIVE_CALLS = `from servers.everything import get_sum
total = 0
for i in range(5):
    total += len(get_sum(a=i, b=1))
print("total", total)
`;

// What the server wrote, in order, as the transport read it: the SDK (1.x)
// hands a notification to onprogress a microtask late, so one that arrives
// in the same read as the result finds its handler gone and is dropped
// (typescript-sdk#2580), which no server can prevent.
function wireLog(client) {
  const wire = [];
  const inner = client.transport.onmessage;
  client.transport.onmessage = (message, extra) => {
    if (message.method === "notifications/progress") wire.push(message.params);
    else if ("result" in message || "error" in message) wire.push({ response: message.id });
    inner?.(message, extra);
  };
  return wire;
}

async function progress() {
  const client = await connect();
  const wire = wireLog(client);
  const seen = [];
  const result = await client.callTool(
    { name: "execute_code", arguments: { code: progressCode ?? FIVE_CALLS, description: "five calls" } },
    undefined,
    { onprogress: (p) => seen.push(p), timeout: 120000 });
  await client.close();
  return { wire, delivered: seen, result: result.structuredContent, text: text(result) };
}

async function tasks(client) {
  const r = await client.callTool({ name: "get_session", arguments: {} });
  return r.structuredContent.task_count;
}

async function cancel() {
  const client = await connect();
  const before = await tasks(client);
  const ac = new AbortController();
  let abortedAt = 0;
  const call = client.callTool(
    { name: "execute_code", arguments: { code: "while True:\n    pass\n", timeout_s: 120 } },
    undefined,
    { signal: ac.signal, timeout: 120000,
      onprogress: () => { if (!abortedAt) { abortedAt = Date.now(); ac.abort("test"); } } });
  let error = null;
  try { await call; } catch (e) { error = String(e); }
  let endedMs = null;
  for (let i = 0; i < 600; i++) {
    if ((await tasks(client)) > before) { endedMs = Date.now() - abortedAt; break; }
    await new Promise((r) => setTimeout(r, 20));
  }
  const r = await client.callTool({ name: "get_session", arguments: {} });
  await client.close();
  return { error, ended_ms: endedMs, last: r.structuredContent.tasks.at(-1) };
}

async function many(n) {
  const one = async (i) => {
    const client = await connect();
    const code = `from servers.everything import get_sum\nprint(get_sum(a=${i}, b=1000))\n`;
    const r = await client.callTool({ name: "execute_code", arguments: { code } }, undefined,
                                    { timeout: 300000 });
    await client.close();
    return { i, stdout: r.structuredContent?.stdout ?? text(r), calls: r.structuredContent?.tool_calls };
  };
  const t0 = Date.now();
  const results = await Promise.all(Array.from({ length: n }, (_, i) => one(i)));
  return { results, ms: Date.now() - t0 };
}

// What the host's user types into a form, by field.
const ANSWERS = { name: "Ada Lovelace", check: true, colour: "teal" };

async function host(code) {
  const caps = { elicitation: { form: {} }, ...(sampling ? { sampling: {} } : {}) };
  const client = new Client({ name: "serve-test-host", version: "1.0.0" }, { capabilities: caps });
  const elicited = [], sampled = [];
  client.setRequestHandler(ElicitRequestSchema, async (req) => {
    elicited.push(req.params);
    const props = req.params.requestedSchema?.properties || {};
    if ("approve" in props) {
      const said = approvals.shift() || "no";
      if (said === "no") return { action: "decline" };
      return { action: "accept", content: { approve: true, ...(said === "session" ? { session: true } : {}) } };
    }
    const content = {};
    for (const k of Object.keys(props)) if (k in ANSWERS) content[k] = ANSWERS[k];
    return { action: "accept", content };
  });
  if (sampling)
    client.setRequestHandler(CreateMessageRequestSchema, async (req) => {
      sampled.push(req.params);
      const said = req.params.messages.map((m) => m.content?.text ?? "").join(" ");
      return { role: "assistant", model: "host-model", stopReason: "endTurn",
               content: { type: "text", text: `sampled: ${said}` } };
    });
  await client.connect(transport());
  const r = await client.callTool({ name: "execute_code", arguments: { code, timeout_s: 120 } },
                                  undefined, { timeout: 300000 });
  await client.close();
  return { result: r.structuredContent, text: text(r), elicited, sampled };
}

const scenarios = { progress, cancel, many: () => many(count), host: () => host(hostCode) };
try {
  const out = await scenarios[scenario]();
  process.stdout.write(JSON.stringify(out) + "\n");
  process.exit(0);
} catch (e) {
  process.stdout.write(JSON.stringify({ failed: String(e && e.stack || e) }) + "\n");
  process.exit(1);
}
