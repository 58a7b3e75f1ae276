// The smallest MCP server over stdio: one tool, echo. For bench/server_start.py.
import readline from "node:readline";

const send = (m) => process.stdout.write(JSON.stringify(m) + "\n");
readline.createInterface({ input: process.stdin }).on("line", (line) => {
  const m = JSON.parse(line);
  if (m.method === "initialize")
    send({ jsonrpc: "2.0", id: m.id, result: { protocolVersion: "2025-06-18",
      capabilities: { tools: {} }, serverInfo: { name: "min", version: "1" } } });
  else if (m.method === "tools/list")
    send({ jsonrpc: "2.0", id: m.id, result: { tools: [{ name: "echo",
      inputSchema: { type: "object", properties: { x: { type: "number" } } } }] } });
  else if (m.method === "tools/call")
    send({ jsonrpc: "2.0", id: m.id, result: { content: [{ type: "text",
      text: JSON.stringify(m.params.arguments) }] } });
});
