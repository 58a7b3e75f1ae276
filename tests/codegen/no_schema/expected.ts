/**
 * no_schema: no-schema
 *
 * MCP tool "no-schema" of server "srv"; its definition is in no_schema.json.
 */
import * as _rt from "../_runtime.ts";

/**
 * no-schema
 *
 * @param input the tool's arguments
 * @returns the result's content (see the root README.md, "Results")
 * @throws McpToolError when the tool reports an error (isError)
 */
export async function no_schema(input: Record<string, unknown> = {}): Promise<unknown> {
	return _rt.callTool("srv", "no-schema", input);
}
