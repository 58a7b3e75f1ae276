/**
 * props: props
 *
 * MCP tool "props" of server "srv"; its definition is in props.json.
 */
import * as _rt from "../_runtime.ts";

export interface PropsInput {
	"a-b"?: number;
	a_b?: number;
	class: string;
	str?: string;
	""?: string;
	_x?: string;
	"1st"?: string;
	[key: string]: unknown;
}

/**
 * Keys that are no identifiers.
 *
 * @param input the tool's arguments
 * @returns the result's content (see the root README.md, "Results")
 * @throws McpToolError when the tool reports an error (isError)
 */
export async function props(input: PropsInput): Promise<unknown> {
	return _rt.callTool("srv", "props", input);
}
