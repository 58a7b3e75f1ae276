// A server whose catalog covers every hostile case codegen must survive:
// names that are keywords, builtins, paths, unicode or collide; descriptions
// that try to end a docstring or comment; every JSON Schema construct. The
// tools echo their arguments back, so a test can check how a generated
// function sent them.
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import {
	CallToolRequestSchema,
	ListToolsRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";

const EVIL = 'Ends """ a docstring, */ a comment, `backticks`, ${injected}, ' +
	"a control character \u0001 here (NUL is refused by the client),\r\nCRLF, a line separator \u2028 and a tab\t; \\ trailing quote \"";

const obj = (properties, required = [], extra = {}) => ({
	type: "object",
	properties,
	required,
	...extra,
});

const tools = [
	{ name: "get-user", description: "Collides with get_user and GetUser.", inputSchema: obj({ id: { type: "string" } }, ["id"]) },
	{ name: "get_user", description: "Collides with get-user.", inputSchema: obj({}) },
	{ name: "GetUser", description: "Collides with get-user.", inputSchema: obj({}) },
	...["class", "from", "default", "__init__", "index", "README", "list", "print", "_runtime",
		"await", "constructor", "None", "typeof", "dict", "Promise", "str", "annotations"].map((name) => ({
		name,
		description: `A tool named ${name}.`,
		inputSchema: obj({ x: { type: "integer" } }),
	})),
	{ name: "x".repeat(300), description: "A 300-character name.", inputSchema: obj({}) },
	...["../../etc/passwd", "a/b\\c", "..", ".", "dots.in.name", " spaces here ", "ünïcödé",
		"🚀", "工具", "3d-render", "-", "a--b__c", "tab\tname", "ctl\u0001name"].map((name) => ({
		name,
		description: `A path-like or odd name: ${JSON.stringify(name)}.`,
		inputSchema: obj({}),
	})),
	{
		name: "evil-description",
		title: 'A title with */ and """ and ${x}',
		description: EVIL,
		inputSchema: obj({
			["we\"ird" + "*/"]: { type: "string", description: EVIL },
			plain: { type: "string", description: EVIL, default: 'x"""y*/' },
		}),
		outputSchema: obj({ ["*/\"\"\""]: { type: "string", description: EVIL } }, ["*/\"\"\""]),
	},
	{
		name: "echo-args",
		description: "Echoes its arguments back as JSON text. Property names that are not identifiers.",
		inputSchema: obj({
			"a-b": { type: "integer", description: "dash" },
			class: { type: "string", description: "keyword" },
			from: { type: "boolean" },
			self: { type: "number" },
			_private: { type: "string" },
			"": { type: "string", description: "empty key" },
			"with space": { type: "string" },
			"1st": { type: "integer" },
			str: { type: "string" },
			None: { type: "string" },
			__init__: { type: "string" },
			_args: { type: "string" },
			a_b: { type: "integer", description: "collides with a-b once sanitized" },
			"ключ": { type: "string" },
			limit: { type: "integer", default: 10 },
			mode: { enum: ["fast", "slow"], default: "fast" },
			ratio: { type: "number", default: 0.5 },
			flag: { type: "boolean", default: false },
			wrong_default: { type: "integer", default: "not an integer" },
		}, ["a-b", "class"]),
	},
	{
		name: "schemas-refs",
		description: "$ref into $defs and definitions, recursive ones, root recursion.",
		inputSchema: {
			type: "object",
			properties: {
				tree: { $ref: "#/$defs/Node" },
				legacy: { $ref: "#/definitions/Legacy" },
				again: { $ref: "#" },
				alias: { $ref: "#/$defs/Alias" },
				loop: { $ref: "#/$defs/Loop" },
				ping: { $ref: "#/$defs/Ping" },
				missing: { $ref: "#/$defs/Missing" },
				external: { $ref: "https://example.com/schema.json" },
				escaped: { $ref: "#/$defs/we~1ird~0name" },
				list: { $ref: "#/$defs/List" },
			},
			$defs: {
				Node: obj({ value: { type: "string" }, children: { type: "array", items: { $ref: "#/$defs/Node" } } }, ["value"]),
				Alias: { type: "string", format: "uri" },
				Loop: { $ref: "#/$defs/Loop" },
				Ping: { anyOf: [{ $ref: "#/$defs/Pong" }, { type: "null" }] },
				Pong: { anyOf: [{ $ref: "#/$defs/Ping" }, { type: "integer" }] },
				"we/ird~name": { type: "boolean" },
				List: { type: "array", items: { anyOf: [{ $ref: "#/$defs/List" }, { type: "integer" }] } },
			},
			definitions: { Legacy: obj({ old: { type: "integer" } }) },
		},
	},
	{
		name: "schemas-combinators",
		description: "anyOf, oneOf, allOf, type arrays and null.",
		inputSchema: obj({
			any_of: { anyOf: [{ type: "string" }, { type: "integer" }, obj({ k: { type: "string" } }, ["k"])] },
			one_of: { oneOf: [{ const: "a" }, { const: 1 }, { type: "null" }] },
			all_of: { allOf: [obj({ a: { type: "string" } }, ["a"]), obj({ b: { type: "integer" } })] },
			all_of_mixed: { allOf: [{ type: "string" }, { minLength: 2 }] },
			all_of_one: { allOf: [{ $ref: "#/$defs/D" }] },
			nullable_array: { type: ["array", "null"], items: { type: "string" } },
			multi: { type: ["string", "integer", "boolean", "null", "object", "array"] },
			constraint_only: { type: "object", properties: { p: { type: "string" } }, anyOf: [{ required: ["p"] }] },
			unknown_type: { type: "wat" },
			openapi: { type: "string", nullable: true },
		}),
		$defs: {},
	},
	{
		name: "schemas-values",
		description: "enum and const of every JSON kind, additionalProperties, patternProperties, prefixItems, boolean schemas.",
		inputSchema: obj({
			enum_mixed: { enum: ["s", 'q"uote', 1, -2, 2.5, true, false, null, { o: 1 }, [1]] },
			enum_empty: { enum: [] },
			const_obj: { const: { a: [1, 2] } },
			const_big: { const: 12345678901234567 },
			map: { type: "object", additionalProperties: { type: "integer" } },
			map_open: { type: "object" },
			pattern: { type: "object", patternProperties: { "^x-": { type: "string" } } },
			mixed_open: obj({ known: { type: "string" } }, [], { additionalProperties: { type: "number" } }),
			closed: obj({ only: { type: "string" } }, [], { additionalProperties: false }),
			tuple: { type: "array", prefixItems: [{ type: "string" }, { type: "integer" }], items: false },
			tuple_rest: { type: "array", prefixItems: [{ type: "string" }], items: { type: "boolean" } },
			tuple_draft7: { type: "array", items: [{ type: "string" }, { type: "number" }], additionalItems: false },
			yes: true,
			no: false,
			empty: {},
			formats: { type: "string", format: "date-time", description: "When." },
			deep: JSON.parse('{"type":"object","properties":{"d":'.repeat(60) + '{"type":"string"}' + "}}".repeat(60)),
		}, ["ghost", "yes"]),
		outputSchema: obj({ count: { type: "integer" }, items: { type: "array", items: obj({ id: { type: "string" } }, ["id"]) } }, ["count"]),
	},
	{ name: "empty-schema", description: "", inputSchema: { type: "object" } },
	{ name: "open-input", description: "Takes any keys.", inputSchema: { type: "object", additionalProperties: true } },
	{ name: "output-not-object", description: "An output schema that is not an object.", inputSchema: obj({}), outputSchema: { type: "object", additionalProperties: { type: "string" } } },
	{ name: "fails", description: "Always reports an error.", inputSchema: obj({}) },
];

const server = new Server({ name: "hostile", version: "1.0.0" }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }));
server.setRequestHandler(CallToolRequestSchema, async (req) => {
	const args = req.params.arguments ?? {};
	if (req.params.name === "fails")
		return { isError: true, content: [{ type: "text", text: "it failed on purpose" }] };
	if (req.params.name === "schemas-values")
		return { content: [{ type: "text", text: "{}" }], structuredContent: { count: 1, items: [{ id: "a" }] } };
	if (req.params.name === "evil-description")
		return { content: [{ type: "text", text: "x" }], structuredContent: { "*/\"\"\"": EVIL } };
	return { content: [{ type: "text", text: JSON.stringify({ tool: req.params.name, args }) }] };
});
await server.connect(new StdioServerTransport());
