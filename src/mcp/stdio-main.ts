// `tsx src/mcp/stdio-main.ts`: the stdio MCP server as a process (until the CLI's `stackwright mcp` wires runStdioServer).
import { runStdioServer } from './stdio.js';

runStdioServer().catch((e: unknown) => {
  console.error(`cannot start the MCP server: ${(e as Error).message}`);
  process.exit(1);
});
