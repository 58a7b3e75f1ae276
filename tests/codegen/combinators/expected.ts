/**
 * combinators: combinators
 *
 * MCP tool "combinators" of server "srv"; its definition is in combinators.json.
 */
import * as _rt from "../_runtime.ts";

export interface CombinatorsInput {
	any?: string | number;
	one?: "a" | 1 | null;
	all?: CombinatorsInputAll;
	nullable?: Array<string> | null;
	anything?: unknown;
	nothing?: never;
	yes?: unknown;
	ghost: unknown;
}

export interface CombinatorsInputAll {
	a: string;
	b?: number;
}

/**
 * Unions.
 *
 * @param input the tool's arguments
 * @returns the result's content (see the root README.md, "Results")
 * @throws McpToolError when the tool reports an error (isError)
 */
export async function combinators(input: CombinatorsInput): Promise<unknown> {
	return _rt.callTool("srv", "combinators", input);
}
