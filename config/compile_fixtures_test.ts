/**
 * Golden tests: `check-config` over every fixture under
 * `config/testdata/compile/`, human output in `expected.txt` and the
 * `--json` document in `expected.json`. Rewritten by `deno task
 * test:update`, never by hand: review their diff like code.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import {
  type CompileFixture,
  compileFixtures,
  FIXTURE_ENV,
  relockFixture,
  runFixture,
  UPDATE_GOLDEN,
} from "./_compile_testing.ts";

async function golden(fixture: CompileFixture): Promise<void> {
  if (UPDATE_GOLDEN) await relockFixture(fixture);
  const human = await runFixture(fixture);
  const json = await runFixture(fixture, ["--json"]);
  assert.equal(human.stderr, "");
  assert.equal(json.code, human.code, "same exit code with --json");
  const text = `$ check-config .${
    fixture.args.map((a) => ` ${a}`).join("")
  }\n${human.stdout}[exit ${human.code}]\n`;
  const textPath = join(fixture.dir, "expected.txt");
  const jsonPath = join(fixture.dir, "expected.json");
  if (UPDATE_GOLDEN) {
    await Deno.writeTextFile(textPath, text);
    await Deno.writeTextFile(jsonPath, json.stdout);
  } else {
    assert.equal(
      text,
      await Deno.readTextFile(textPath),
      `${fixture.name}: expected.txt`,
    );
    assert.equal(
      json.stdout,
      await Deno.readTextFile(jsonPath),
      `${fixture.name}: expected.json`,
    );
  }
  // No secret value ever reaches an output.
  for (const [name, value] of Object.entries(FIXTURE_ENV)) {
    assert.ok(!human.stdout.includes(value), `${fixture.name}: ${name} leaked`);
    assert.ok(!json.stdout.includes(value), `${fixture.name}: ${name} leaked`);
  }
  const doc = JSON.parse(json.stdout);
  assert.equal(doc.format_version, "1");
  assert.equal(doc.valid, human.code === 0);
  assert.equal("plan" in doc, human.code === 0);
}

for (const fixture of compileFixtures("valid")) {
  Deno.test(`check-config accepts ${fixture.name} (golden)`, async () => {
    await golden(fixture);
    const { code } = await runFixture(fixture);
    assert.equal(code, 0);
  });
}

for (const fixture of compileFixtures("invalid")) {
  Deno.test(`check-config rejects ${fixture.name} (golden)`, async () => {
    await golden(fixture);
    const { code } = await runFixture(fixture);
    assert.notEqual(code, 0);
  });
}
