// A real MCP client (the npm @modelcontextprotocol/sdk) driving `lets mcp`
// over stdio, for app/mcp_client_test.go. Usage:
//
//   node drive.mjs <sdk package folder> <lets binary> [args...]
//
// It connects, then reads one JSON request per stdin line and writes one
// JSON answer per stdout line:
//   {"op":"list"}                         → {"ok":true,"tools":[...]}
//   {"op":"call","name":N,"arguments":A}  → {"ok":true,"result":{content,structuredContent,isError}}
// Failures answer {"ok":false,"error":"..."}. End of stdin closes the client.
// The child's environment is this process's (LETS_HOME and the rest).
import { pathToFileURL } from "node:url";
import { join } from "node:path";
import { createInterface } from "node:readline";

const [sdkDir, lets, ...letsArgs] = process.argv.slice(2);
if (!sdkDir || !lets) {
  console.error("usage: node drive.mjs <sdk folder> <lets binary> [args...]");
  process.exit(2);
}
const load = (rel) => import(pathToFileURL(join(sdkDir, "dist", "esm", rel)).href);
const { Client } = await load("client/index.js");
const { StdioClientTransport } = await load("client/stdio.js");

const transport = new StdioClientTransport({
  command: lets,
  args: letsArgs.length ? letsArgs : ["mcp"],
  env: { ...process.env },
  stderr: "inherit",
});
const client = new Client({ name: "lets-test-client", version: "1.0.0" });
await client.connect(transport);
const info = client.getServerVersion();
process.stdout.write(JSON.stringify({ ok: true, connected: true, server: info ?? null }) + "\n");

const lines = createInterface({ input: process.stdin });
for await (const line of lines) {
  if (!line.trim()) continue;
  let answer;
  try {
    const req = JSON.parse(line);
    if (req.op === "list") {
      const res = await client.listTools();
      answer = { ok: true, tools: res.tools };
    } else if (req.op === "call") {
      const res = await client.callTool({ name: req.name, arguments: req.arguments ?? {} }, undefined, { timeout: 60000 });
      answer = { ok: true, result: res };
    } else {
      answer = { ok: false, error: "unknown op " + req.op };
    }
  } catch (err) {
    answer = { ok: false, error: String(err && err.message ? err.message : err) };
  }
  process.stdout.write(JSON.stringify(answer) + "\n");
}
await client.close();
