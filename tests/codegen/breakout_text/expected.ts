/**
 * we_ird_name: T """ *\/ `x` ${y}
 *
 * MCP tool "we\"ird *\/ name" of server "srv"; its definition is in we_ird_name.json.
 */
import * as _rt from "../_runtime.ts";

export interface WeIrdNameInput {
	/**
	 * *\/ """ \x00 Default: "a\"\"\"b*\/\u0000".
	 */
	"q\"*/"?: string;
}

/**
 * T """ *\/ `x` ${y}
 *
 * Ends """ a docstring, *\/ a comment, `bt`, ${x}, NUL \x00 here,
 * CRLF
 * CR, U+2028 
 * , tab    , backslash \ and a trailing quote ".
 *
 * @param input the tool's arguments
 * @returns the result's content (see the root README.md, "Results")
 * @throws McpToolError when the tool reports an error (isError)
 */
export async function we_ird_name(input: WeIrdNameInput = {}): Promise<unknown> {
	return _rt.callTool("srv", "we\"ird */ name", input);
}
