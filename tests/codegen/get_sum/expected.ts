/**
 * get_sum: get-sum
 *
 * MCP tool "get-sum" of server "srv"; its definition is in get_sum.json.
 */
import * as _rt from "../_runtime.ts";

export interface GetSumInput {
	/**
	 * First number.
	 */
	a: number;
	/**
	 * Second number.
	 */
	b: number;
}

/**
 * Returns the sum of two numbers.
 *
 * @param input the tool's arguments
 * @returns the result's content (see the root README.md, "Results")
 * @throws McpToolError when the tool reports an error (isError)
 */
export async function get_sum(input: GetSumInput): Promise<unknown> {
	return _rt.callTool("srv", "get-sum", input);
}
