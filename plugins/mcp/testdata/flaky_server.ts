/**
 * A small stdio MCP server for the bridge's tests: tools that answer,
 * fail, crash the process, hang, or make the server stop answering
 * altogether, one that adds a tool (and announces it with
 * `tools/list_changed`), one that returns an image, and one that reports
 * the process's environment. Run with
 * `deno run --config <repo>/deno.json flaky_server.ts [--exit-at-start]`.
 *
 * @module
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import {
  CallToolRequestSchema,
  ListToolsRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";

if (Deno.args.includes("--exit-at-start")) {
  console.error("flaky: refusing to start (as asked)");
  Deno.exit(7);
}

const server = new Server(
  { name: "flaky", version: "1.0.0" },
  { capabilities: { tools: { listChanged: true } } },
);

const tools = [
  {
    name: "echo",
    description: "Echoes its text.",
    inputSchema: {
      type: "object",
      properties: { text: { type: "string" } },
      required: ["text"],
    },
    annotations: { readOnlyHint: true },
  },
  {
    name: "fail",
    description: "Reports an error result.",
    inputSchema: { type: "object", properties: {} },
    annotations: { readOnlyHint: true },
  },
  {
    name: "crash",
    description: "Exits the process mid-call.",
    inputSchema: { type: "object", properties: {} },
  },
  {
    name: "hang",
    description: "Never answers this call (the server stays responsive).",
    inputSchema: { type: "object", properties: {} },
  },
  {
    name: "freeze",
    description: "Stops answering anything, pings included.",
    inputSchema: { type: "object", properties: {} },
  },
  {
    name: "add_tool",
    description: "Adds the tool `late` and announces it.",
    inputSchema: { type: "object", properties: {} },
    annotations: { destructiveHint: false, openWorldHint: false },
  },
  {
    name: "image",
    description: "Returns a 1x1 PNG and a text resource.",
    inputSchema: { type: "object", properties: {} },
    annotations: { readOnlyHint: true },
  },
  {
    name: "environment",
    description: "Returns the names of the process's environment variables.",
    inputSchema: { type: "object", properties: {} },
    annotations: { readOnlyHint: true },
  },
  {
    name: "pid",
    description: "Returns the server's process id.",
    inputSchema: { type: "object", properties: {} },
    annotations: { readOnlyHint: true },
  },
  {
    name: "echo_json",
    description: "Echoes a value of any type.",
    inputSchema: {
      type: "object",
      properties: {
        value: {
          anyOf: [{ type: "number" }, {
            type: "array",
            items: { type: "number" },
          }],
        },
      },
      required: ["value"],
    },
    annotations: { readOnlyHint: true },
  },
];

const PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

server.setRequestHandler(ListToolsRequestSchema, () => ({ tools }));

server.setRequestHandler(
  CallToolRequestSchema,
  async (req: { params: { name: string; arguments?: unknown } }) => {
    const args = (req.params.arguments ?? {}) as Record<string, unknown>;
    switch (req.params.name) {
      case "echo":
        return { content: [{ type: "text", text: String(args.text) }] };
      case "echo_json":
        return {
          content: [{ type: "text", text: JSON.stringify(args.value) }],
        };
      case "fail":
        return {
          isError: true,
          content: [{ type: "text", text: "the widget is broken" }],
        };
      case "crash":
        console.error("flaky: crashing now");
        Deno.exit(3);
        break;
      case "hang":
        return await new Promise<never>(() => {});
      case "freeze":
        transport.onmessage = () => {};
        return await new Promise<never>(() => {});
      case "add_tool":
        if (!tools.some((t) => t.name === "late")) {
          tools.push({
            name: "late",
            description: "Added at run time.",
            inputSchema: { type: "object", properties: {} },
            annotations: { readOnlyHint: true },
          });
        }
        await server.sendToolListChanged();
        return { content: [{ type: "text", text: "added" }] };
      case "pid":
        return { content: [{ type: "text", text: String(Deno.pid) }] };
      case "late":
        return { content: [{ type: "text", text: "late answer" }] };
      case "image":
        return {
          content: [
            { type: "image", data: PNG, mimeType: "image/png" },
            {
              type: "resource",
              resource: {
                uri: "mem://note",
                mimeType: "text/plain",
                text: "a note",
              },
            },
          ],
        };
      case "environment":
        return {
          content: [{
            type: "text",
            text: JSON.stringify(Object.keys(Deno.env.toObject()).sort()),
          }],
        };
    }
    return {
      isError: true,
      content: [{ type: "text", text: `no tool ${req.params.name}` }],
    };
  },
);

const transport = new StdioServerTransport();
await server.connect(transport);
