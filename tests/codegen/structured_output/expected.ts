/**
 * get_structured_content: Weather
 *
 * MCP tool "get-structured-content" of server "srv"; its definition is in get_structured_content.json.
 */
import * as _rt from "../_runtime.ts";

export interface GetStructuredContentInput {
	/**
	 * Choose city. Allowed: "New York", "Chicago".
	 */
	location: "New York" | "Chicago";
}

export interface GetStructuredContentOutput {
	temperature: number;
	tags?: Array<string>;
	where?: GetStructuredContentOutputWhere;
}

export interface GetStructuredContentOutputWhere {
	lat: number;
	lon?: number;
}

/**
 * Weather
 *
 * Returns structured content.
 *
 * @param input the tool's arguments
 * @returns the tool's structuredContent, typed as its outputSchema says
 * @throws McpToolError when the tool reports an error (isError)
 */
export async function get_structured_content(input: GetStructuredContentInput): Promise<GetStructuredContentOutput> {
	return (await _rt.callTool("srv", "get-structured-content", input)) as GetStructuredContentOutput;
}
