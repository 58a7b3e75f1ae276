// Sum numbers pairwise with server-everything's get-sum. The caller passes the
// runtime's callTool, so this file does not depend on where the tree is mounted.
type CallTool = (server: string, name: string, args: Record<string, unknown>) => Promise<unknown>;

function value(result: unknown): number {
  if (typeof result === "number") return result;
  const found = String(typeof result === "string" ? result : JSON.stringify(result)).match(
    /-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?/g,
  );
  if (!found) throw new Error(`get-sum gave no number: ${JSON.stringify(result)}`);
  return Number(found[found.length - 1]);
}

export async function total(callTool: CallTool, numbers: number[]): Promise<number> {
  let acc = 0;
  for (const n of numbers) acc = value(await callTool("everything", "get-sum", { a: acc, b: n }));
  return acc;
}
