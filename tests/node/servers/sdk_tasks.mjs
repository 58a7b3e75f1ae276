// A tool that allows tasks without requiring them (execution.taskSupport
// "optional"), for what server-everything does not have:
//   node sdk_tasks.mjs
// - `crunch` {steps}: works `steps` stages of 300 ms, each a task status
//   message "stage N of M", then returns "crunched M stages". Called as a
//   task, the client sees the status messages through tasks/get; called
//   plainly, the SDK polls the task itself and the client sees only the
//   result.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { InMemoryTaskMessageQueue, InMemoryTaskStore } from "@modelcontextprotocol/sdk/experimental/tasks";
import { z } from "zod";

const taskStore = new InMemoryTaskStore();
const server = new McpServer({ name: "sdk-tasks", version: "1.0.0" }, {
	capabilities: { tools: {}, tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } },
	taskStore,
	taskMessageQueue: new InMemoryTaskMessageQueue(),
});

const sleep = (ms) => new Promise((go) => setTimeout(go, ms));

async function crunch(taskId, steps, store) {
	for (let i = 1; i <= steps; i++) {
		await store.updateTaskStatus(taskId, "working", `stage ${i} of ${steps}`);
		await sleep(300);
	}
	await store.storeTaskResult(taskId, "completed",
		{ content: [{ type: "text", text: `crunched ${steps} stages` }] });
}

server.experimental.tasks.registerToolTask("crunch", {
	description: "Crunch numbers in stages; may take a while.",
	inputSchema: { steps: z.number().int().min(1).max(20) },
	execution: { taskSupport: "optional" },
}, {
	createTask: async ({ steps }, extra) => {
		const task = await extra.taskStore.createTask({ ttl: 300000, pollInterval: 100 });
		crunch(task.taskId, steps, extra.taskStore).catch((e) =>
			extra.taskStore.updateTaskStatus(task.taskId, "failed", String(e)));
		return { task };
	},
	getTask: async (_args, extra) => extra.taskStore.getTask(extra.taskId),
	getTaskResult: async (_args, extra) => extra.taskStore.getTaskResult(extra.taskId),
});

await server.connect(new StdioServerTransport());
process.stdin.on("end", () => process.exit(0));
