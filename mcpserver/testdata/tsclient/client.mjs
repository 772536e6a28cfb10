// A client that is not promptkit's: the official TypeScript MCP SDK's,
// driven by mcpserver's TestTypeScriptClient. It connects to
// "promptkit serve --mcp" over stdio (it starts the command itself) or
// streamable HTTP (a URL), prints one JSON line per step on stdout, and
// waits, after it has listed the prompts, for the reload the test makes
// (notifications/prompts/list_changed).
//
//   node client.mjs stdio PROMPTKIT_BINARY SET_DIR
//   node client.mjs http  http://127.0.0.1:PORT/mcp
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { PromptListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";

const [mode, target, dir] = process.argv.slice(2);
const print = (event, value) => console.log(JSON.stringify({ event, value }));

const client = new Client({ name: "promptkit-ts-test", version: "1.0.0" });
let changed;
const listChanged = new Promise((resolve) => { changed = resolve; });
client.setNotificationHandler(PromptListChangedNotificationSchema, () => changed());

const transport = mode === "stdio"
  ? new StdioClientTransport({ command: target, args: ["serve", "--mcp", "--dir", dir, "--debounce", "20ms"], stderr: "inherit" })
  : new StreamableHTTPClientTransport(new URL(target));
await client.connect(transport);
print("server", client.getServerVersion());

print("list", (await client.listPrompts()).prompts);
print("get", await client.getPrompt({ name: "support", arguments: {
  product: "麦麦", examples: '[{"q": "怎么退货？", "a": "在订单页点“退货”。"}]',
  question: "这个报错是什么意思？", screenshot: "data:image/png;base64,iVBORw0KGgo=" } }));
try {
  await client.getPrompt({ name: "title", arguments: { intnet: "查天气" } });
  print("error", null);
} catch (e) {
  print("error", { code: e.code, message: e.message, data: e.data });
}
print("complete", (await client.complete({ ref: { type: "ref/prompt", name: "title" },
  argument: { name: "tone", value: "正" } })).completion);

print("listening", null);
const timeout = setTimeout(() => { print("timeout", null); process.exit(1); }, 60000);
await listChanged;
clearTimeout(timeout);
print("list-after", (await client.listPrompts()).prompts.map((p) => p.name));
await client.close();
