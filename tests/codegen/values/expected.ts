/**
 * values: values
 *
 * MCP tool "values" of server "srv"; its definition is in values.json.
 */
import * as _rt from "../_runtime.ts";

export interface ValuesInput {
	/**
	 * Allowed: "s", 1, 2.5, true, null, {"o": 1}, [1].
	 */
	e?: "s" | 1 | number | true | null | Record<string, unknown> | unknown[];
	map?: Record<string, number>;
	pattern?: Record<string, string>;
	tuple?: [string, number];
	rest?: [string, ...Array<boolean>];
	/**
	 * Format: int32. Default: 3.
	 */
	n?: number;
	/**
	 * Allowed: "x", "y". Default: "y".
	 */
	mode?: "x" | "y";
	/**
	 * Default: "z".
	 */
	bad_default?: number;
}

/**
 * Values.
 *
 * @param input the tool's arguments
 * @returns the result's content (see the root README.md, "Results")
 * @throws McpToolError when the tool reports an error (isError)
 */
export async function values(input: ValuesInput = {}): Promise<unknown> {
	return _rt.callTool("srv", "values", input);
}
