import assert from "node:assert/strict";
import type { Diagnostic } from "../contract/diagnostic.ts";
import { parseHcl } from "./hcl/mod.ts";
import { decodeAgentConfig } from "./decode.ts";
import { DEFAULT_STATE } from "./decode_state.ts";

function decode(src: string) {
  const diagnostics: Diagnostic[] = [];
  const { body } = parseHcl(src, "agent.hcl");
  const config = decodeAgentConfig(body, diagnostics);
  return { state: config.state, diagnostics };
}

Deno.test("state {}: absent means sqlite", () => {
  const { state, diagnostics } = decode("");
  assert.deepEqual(state, DEFAULT_STATE);
  assert.deepEqual(diagnostics, []);
});

Deno.test("state {}: postgres keeps the URL's variable name and the schema, never the URL", () => {
  const { state, diagnostics } = decode(
    'state {\n  backend = "postgres"\n  url = env("AGENT_DATABASE_URL")\n  schema = "team"\n}\n',
  );
  assert.deepEqual(diagnostics, []);
  assert.deepEqual(state, {
    backend: "postgres",
    urlEnv: "AGENT_DATABASE_URL",
    schema: "team",
  });
});

Deno.test("state {}: the schema defaults to agent", () => {
  const { state } = decode(
    'state {\n  backend = "postgres"\n  url = env("DB")\n}\n',
  );
  assert.deepEqual(state, {
    backend: "postgres",
    urlEnv: "DB",
    schema: "agent",
  });
});

Deno.test("state {}: a literal URL is refused without echoing it", () => {
  const { state, diagnostics } = decode(
    'state {\n  backend = "postgres"\n  url = "postgres://u:hunter2@db/agent"\n}\n',
  );
  assert.deepEqual(state, DEFAULT_STATE);
  assert.equal(diagnostics[0].code, "E_SECRET_SHAPE");
  assert.doesNotMatch(JSON.stringify(diagnostics), /hunter2/);
});

Deno.test("state {}: a missing url, an unknown backend, a bad schema and sqlite with url are errors naming the field", () => {
  const cases: [string, RegExp][] = [
    ['state {\n  backend = "postgres"\n}\n', /"url"/],
    ['state {\n  backend = "mysql"\n}\n', /backend/],
    [
      'state {\n  backend = "postgres"\n  url = env("DB")\n  schema = "Bad-Name"\n}\n',
      /"schema"/,
    ],
    ['state {\n  url = env("DB")\n}\n', /"url" needs backend = "postgres"/],
  ];
  for (const [src, re] of cases) {
    const { state, diagnostics } = decode(src);
    assert.deepEqual(state, DEFAULT_STATE, src);
    assert.ok(diagnostics.some((d) => d.severity === "error"), src);
    assert.match(
      diagnostics.map((d) => `${d.summary} ${d.detail}`).join("\n"),
      re,
      src,
    );
  }
});
