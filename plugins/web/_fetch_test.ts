import assert from "node:assert/strict";
import {
  capOutput,
  classifyMediaType,
  FetchFailure,
  htmlToMarkdown,
  parseContentType,
  parseTarget,
} from "./_fetch.ts";

Deno.test("classifyMediaType: html, text, binary", () => {
  assert.equal(classifyMediaType("text/html"), "html");
  assert.equal(classifyMediaType("application/xhtml+xml"), "html");
  for (
    const t of [
      "text/plain",
      "text/markdown",
      "application/json",
      "application/vnd.api+json",
      "application/atom+xml",
      "image/svg+xml",
    ]
  ) assert.equal(classifyMediaType(t), "text", t);
  for (
    const t of [
      "image/png",
      "application/pdf",
      "application/octet-stream",
      "application/zip",
    ]
  ) assert.equal(classifyMediaType(t), "binary", t);
});

Deno.test("parseContentType: media type and charset", () => {
  assert.deepEqual(parseContentType(null), { mediaType: "" });
  assert.deepEqual(parseContentType('Text/HTML; Charset="ISO-8859-1"'), {
    mediaType: "text/html",
    charset: "iso-8859-1",
  });
  assert.deepEqual(parseContentType("application/json; q=1"), {
    mediaType: "application/json",
  });
});

Deno.test("parseTarget: http(s) only, no credentials, no fragment", () => {
  assert.equal(
    parseTarget(" https://docs.example.com/a#b ").href,
    "https://docs.example.com/a",
  );
  for (
    const [raw, pattern] of [
      [42, /must be a non-empty string/],
      ["", /must be a non-empty string/],
      ["/relative", /not an absolute URL/],
      ["ftp://x/", /uses ftp:/],
      ["https://a:b@x/", /must not carry credentials/],
    ] as const
  ) {
    assert.throws(
      () => parseTarget(raw),
      (e) =>
        e instanceof FetchFailure && e.kind === "invalid_arguments" &&
        pattern.test(e.message),
    );
  }
});

Deno.test("capOutput: the marker says what was cut", () => {
  assert.deepEqual(capOutput("abc", 5, false, 10), {
    content: "abc",
    truncated: false,
  });
  assert.deepEqual(capOutput("abcdef", 3, true, 10), {
    content:
      "abc\n\n[web_fetch: content truncated — output cut at 3 of 6 characters; download stopped at the 10-byte limit. Ask for a more specific page to see the rest.]",
    truncated: true,
  });
});

Deno.test("htmlToMarkdown: headings, links, lists; no scripts", () => {
  assert.equal(
    htmlToMarkdown(
      '<h2>T</h2><script>x()</script><p>See <a href="/d">docs</a>.</p><ol><li>a</li></ol>',
    ),
    "## T\n\nSee [docs](/d).\n\n1. a",
  );
});
