/**
 * proto: proto
 *
 * MCP tool "proto" of server "srv"; its definition is in proto.json.
 */
import * as _rt from "../_runtime.ts";

export interface ProtoInput {
	/**
	 * Not the constructor.
	 */
	constructor?: string;
	/**
	 * Default: false.
	 */
	toString?: boolean;
	/**
	 * From 0 to 9.
	 */
	valueOf?: number;
	/**
	 * At least 1 item. No duplicate items. Each item one of: "x", "y".
	 */
	hasOwnProperty?: Array<"x" | "y">;
	/**
	 * 1 to 8 characters. Format: hostname. Pattern: ^[a-z]+$.
	 */
	isPrototypeOf?: string;
}

/**
 * Properties named like members of Object.prototype, all optional.
 *
 * Hints from the server: destructive (may delete or overwrite), not idempotent, open world (reaches outside systems).
 *
 * @param input the tool's arguments
 * @returns the result's content (see the root README.md, "Results")
 * @throws McpToolError when the tool reports an error (isError)
 */
export async function proto(input: ProtoInput = {} as ProtoInput): Promise<unknown> {
	return _rt.callTool("srv", "proto", input);
}
