/**
 * refs: refs
 *
 * MCP tool "refs" of server "srv"; its definition is in refs.json.
 */
import * as _rt from "../_runtime.ts";

export interface RefsInput {
	node: RefsNode;
	legacy?: RefsLegacy;
	self?: RefsInput;
	loop?: RefsLoop;
	missing?: unknown;
	list?: RefsList;
}

export interface RefsNode {
	v?: string;
	kids?: Array<RefsNode>;
}

export type RefsLegacy = number;

export type RefsLoop = unknown;

export type RefsList = Array<RefsList | number>;

/**
 * Refs.
 *
 * @param input the tool's arguments
 * @returns the result's content (see the root README.md, "Results")
 * @throws McpToolError when the tool reports an error (isError)
 */
export async function refs(input: RefsInput): Promise<unknown> {
	return _rt.callTool("srv", "refs", input);
}
