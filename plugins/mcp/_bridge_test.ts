import assert from "node:assert/strict";
import { mapResult } from "./_bridge.ts";

Deno.test("mapResult: every content kind, in order", () => {
  const payload = mapResult({
    content: [
      { type: "text", text: "one" },
      { type: "image", data: "aGk=", mimeType: "image/png" },
      { type: "audio", data: "aGk=", mimeType: "audio/wav" },
      {
        type: "resource",
        resource: { uri: "file:///a", mimeType: "text/plain", text: "A" },
      },
      { type: "resource", resource: { uri: "file:///b", blob: "Yg==" } },
      {
        type: "resource_link",
        uri: "file:///c",
        name: "c",
        description: "C",
      },
      { type: "text", text: "two" },
    ],
    structuredContent: { n: 1 },
  }, 1000);
  assert.deepEqual(payload, {
    text: "one\n\ntwo",
    content: [
      { type: "text", text: "one" },
      { type: "image", mime_type: "image/png", data: "aGk=" },
      { type: "audio", mime_type: "audio/wav", data: "aGk=" },
      {
        type: "resource",
        uri: "file:///a",
        mime_type: "text/plain",
        text: "A",
      },
      { type: "resource", uri: "file:///b", data: "Yg==" },
      {
        type: "resource_link",
        uri: "file:///c",
        name: "c",
        description: "C",
      },
      { type: "text", text: "two" },
    ],
    structured_content: { n: 1 },
    truncated: false,
  });
});

Deno.test("mapResult: text and data share one budget; cuts are marked", () => {
  const payload = mapResult({
    content: [
      { type: "text", text: "x".repeat(8) },
      { type: "image", data: "A".repeat(8), mimeType: "image/png" },
      { type: "text", text: "y".repeat(8) },
    ],
  }, 12);
  assert.equal(payload.truncated, true);
  const content = payload.content as Record<string, unknown>[];
  assert.equal(content[0]!.text, "x".repeat(8));
  // The image does not fit in the 4 characters left: left out, marked.
  assert.deepEqual(content[1], {
    type: "image",
    mime_type: "image/png",
    data: "",
    omitted: true,
  });
  assert.equal(content[2]!.text, "yyyy\n[mcp: cut at 4 of 8 characters]");
  assert.equal(content[2]!.omitted, true);
});
