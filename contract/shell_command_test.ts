/**
 * The bash command parser: table tests over real-world command lines, the
 * known bypass shapes, the refusals, and properties over generated lines
 * (a dangerous command is never hidden; it is a segment or the line is
 * refused).
 */
import assert from "node:assert/strict";
import {
  MAX_COMMAND_DEPTH,
  parseShellCommand,
  plainCommandText,
  quoteShellWord,
} from "./shell_command.ts";

function texts(line: string): string[] {
  const r = parseShellCommand(line);
  assert.ok(r.ok, `${JSON.stringify(line)}: ${r.ok ? "" : r.reason}`);
  return r.segments.map((s) => s.text);
}

function refusal(line: string): string {
  const r = parseShellCommand(line);
  assert.ok(!r.ok, `${JSON.stringify(line)} should be unparseable`);
  return r.reason;
}

Deno.test("shell parser: the known bypass class surfaces the dangerous segment", () => {
  const cases: [string, string[]][] = [
    ["git status && rm -rf x", ["git status", "rm -rf x"]],
    ["echo ok; rm -rf /", ["echo ok", "rm -rf /"]],
    ["ls $(rm -rf x)", ["rm -rf x", "ls $(rm -rf x)"]],
    [`sh -c "rm -rf x"`, ["sh -c 'rm -rf x'", "rm -rf x"]],
    ["env FOO=1 rm -rf x", ["env FOO=1 rm -rf x", "rm -rf x"]],
    ["xargs rm", ["xargs rm", "rm"]],
    ["true || rm -rf x", ["true", "rm -rf x"]],
    ["ls `rm -rf x`", ["rm -rf x", "ls `rm -rf x`"]],
    ["git status & rm -rf x", ["git status", "rm -rf x"]],
    ["git status\nrm -rf x", ["git status", "rm -rf x"]],
    ["git status | rm -rf x", ["git status", "rm -rf x"]],
    ["git status |& rm -rf x", ["git status", "rm -rf x"]],
    ["(rm -rf x)", ["rm -rf x"]],
    ["{ rm -rf x; }", ["rm -rf x"]],
    ["cat <(rm -rf x)", ["rm -rf x", "cat <(rm -rf x)"]],
    ["echo hi > >(rm -rf x)", [
      "rm -rf x",
      "echo hi",
      "> >(rm -rf x)",
    ]],
    ["cat x > /etc/passwd", ["cat x", "> /etc/passwd"]],
    ["ls >& out", ["ls", ">&out"]],
    ['echo "$(rm -rf x)"', ["rm -rf x", 'echo "$(rm -rf x)"']],
    ["X=$(rm -rf x)", ["rm -rf x", "X=$(rm -rf x)"]],
    ["sudo rm -rf x", ["sudo rm -rf x", "rm -rf x"]],
    ["sudo -u root -E rm -rf x", ["sudo -u root -E rm -rf x", "rm -rf x"]],
    ["nohup rm -rf x", ["nohup rm -rf x", "rm -rf x"]],
    ["time rm -rf x", ["time rm -rf x", "rm -rf x"]],
    ["timeout -s KILL 5 rm -rf x", ["timeout -s KILL 5 rm -rf x", "rm -rf x"]],
    ["nice -n 10 rm -rf x", ["nice -n 10 rm -rf x", "rm -rf x"]],
    ["nice -5 rm -rf x", ["nice -5 rm -rf x", "rm -rf x"]],
    ["command rm -rf x", ["command rm -rf x", "rm -rf x"]],
    ["exec rm -rf x", ["exec rm -rf x", "rm -rf x"]],
    ["builtin rm -rf x", ["builtin rm -rf x", "rm -rf x"]],
    ["stdbuf -oL rm -rf x", ["stdbuf -oL rm -rf x", "rm -rf x"]],
    ["/usr/bin/env rm -rf x", [
      "/usr/bin/env rm -rf x",
      "env rm -rf x",
      "rm -rf x",
    ]],
    ["bash -c 'rm -rf x'", ["bash -c 'rm -rf x'", "rm -rf x"]],
    ["bash -lc 'rm -rf x'", ["bash -lc 'rm -rf x'", "rm -rf x"]],
    ["bash -e -c 'rm -rf x' arg0", ["bash -e -c 'rm -rf x' arg0", "rm -rf x"]],
    [`sh -c "sh -c 'rm -rf x'"`, [
      `sh -c 'sh -c '\\''rm -rf x'\\'''`,
      "sh -c 'rm -rf x'",
      "rm -rf x",
    ]],
    ["find . -name '*.o' -exec rm -f {} \\;", [
      "find . -name '*.o' -exec rm -f {} ';'",
      "rm -f {}",
    ]],
    ["find . -execdir rm {} +", ["find . -execdir rm {} +", "rm {}"]],
    ["xargs -0 -n 1 -I{} rm -rf {}", [
      "xargs -0 -n 1 -I{} rm -rf {}",
      "rm -rf {}",
    ]],
    ["FOO=1 rm -rf x", ["FOO=1 rm -rf x", "rm -rf x"]],
    ["r''m -rf x", ["rm -rf x"]],
    ['"rm" -rf x', ["rm -rf x"]],
    ["\\rm -rf x", ["rm -rf x"]],
    ["$'rm' -rf x", ["rm -rf x"]],
    ["rm \\\n -rf x", ["rm -rf x"]],
    ["if true; then rm -rf x; fi", ["true", "rm -rf x"]],
    ["while false; do rm -rf x; done", ["false", "rm -rf x"]],
    ["for f in a b; do rm -rf $f; done", ["rm -rf $f"]],
    ["for f in $(rm -rf x); do :; done", ["rm -rf x", ":"]],
    ["! rm -rf x", ["rm -rf x"]],
    ["[[ -d x ]] && rm -rf x", ["[[ -d x ]]", "rm -rf x"]],
    ["/bin/rm -rf x", ["/bin/rm -rf x", "rm -rf x"]],
    ["./rm -rf x > log", ["./rm -rf x", "> log", "rm -rf x"]],
    ["sudo /usr/bin/rm -rf x", [
      "sudo /usr/bin/rm -rf x",
      "/usr/bin/rm -rf x",
      "rm -rf x",
    ]],
  ];
  for (const [line, expected] of cases) {
    assert.deepEqual(texts(line), expected, JSON.stringify(line));
  }
});

Deno.test("shell parser: real-world commands and their normalized text", () => {
  const cases: [string, string[]][] = [
    ["git status", ["git status"]],
    ["git  status   --short", ["git status --short"]],
    ['git commit -m "fix: the bug"', ["git commit -m 'fix: the bug'"]],
    ["git log --oneline -n 5 | head -3", ["git log --oneline -n 5", "head -3"]],
    ["npm test -- --watch=false", ["npm test -- --watch=false"]],
    ["deno test -A tests/x_test.ts 2>&1 | tail -20", [
      "deno test -A tests/x_test.ts 2>&1",
      "tail -20",
    ]],
    ["ls -la *.ts", ["ls -la *.ts"]],
    ["grep -rn 'TODO' src/ > todo.txt", [
      "grep -rn TODO src/",
      "> todo.txt",
    ]],
    ["cd build && make -j4 all", ["cd build", "make -j4 all"]],
    ["echo $HOME ${PATH} $((1 + 2))", ["echo $HOME ${PATH} $((1 + 2))"]],
    ["echo 'it'\\''s'", ["echo 'it'\\''s'"]],
    ["echo $'a\\tb\\x41\\u00e9'", ["echo 'a\tbAé'"]],
    ["python3 -c 'print(1)'", ["python3 -c 'print(1)'"]],
    ["cat < in.txt >> out.txt", ["cat < in.txt", ">> out.txt"]],
    ["cmd &> all.log", ["cmd", "&> all.log"]],
    ["make 2> /dev/null || true", [
      "make",
      "2> /dev/null",
      "true",
    ]],
    ["echo x >&2; echo y 1>&2 2>&-", ["echo x >&2", "echo y 1>&2 2>&-"]],
    ["FOO=1 > out", ["FOO=1", "> out"]],
    ["docker ps -a --format '{{.Names}}'", [
      "docker ps -a --format '{{.Names}}'",
    ]],
    ["( cd sub && npm ci ) | tee log", ["cd sub", "npm ci", "tee log"]],
    ["{ ls; pwd; } > out", ["ls", "pwd", "> out"]],
    ["PATH=/tmp/evil", ["PATH=/tmp/evil"]],
    ["FOO=1 BAR=2 git status", ["FOO=1 BAR=2 git status", "git status"]],
    ["ls # a comment && rm -rf x", ["ls"]],
    ["echo a#b", ["echo 'a#b'"]],
    ["echo $((x - 1)) $(( (a + b) * 2 ))", [
      "echo $((x - 1)) $(( (a + b) * 2 ))",
    ]],
    ["echo $((id) )", ["id", "echo $((id) )"]],
    ["tar czf out.tgz --exclude='*.log' dir/", [
      "tar czf out.tgz '--exclude=*.log' dir/",
    ]],
    ["bash script.sh", ["bash script.sh"]],
    ["curl -s https://example.test/x | bash", [
      "curl -s https://example.test/x",
      "bash",
    ]],
    ["sudo -i", ["sudo -i"]],
    ["env", ["env"]],
    ["echo {a,b}.txt", ["echo {a,b}.txt"]],
    ["[ -f x ] && cat x", ["[ -f x ]", "cat x"]],
    ["echo ~/x", ["echo ~/x"]],
    ["", []],
    ["   ;  ", []],
  ];
  for (const [line, expected] of cases) {
    assert.deepEqual(texts(line), expected, JSON.stringify(line));
  }
});

Deno.test("shell parser: here-documents: quoted bodies are data, unquoted bodies expand", () => {
  const cases: [string, string[]][] = [
    ["cat <<'EOF' > notes.md\nhello $(rm -rf x) `id`\nEOF", [
      "cat << EOF",
      "> notes.md",
    ]],
    ['cat <<"EOF"\n$(rm -rf x)\nEOF\nls', ["cat << EOF", "ls"]],
    ["cat <<\\EOF\n$(rm -rf x)\nEOF", ["cat << EOF"]],
    ["cat <<EOF\nhello $(rm -rf x) and `id` and \\$(not)\nEOF", [
      "cat << EOF",
      "rm -rf x",
      "id",
    ]],
    ["cat <<-EOF\n\tbody\n\tEOF\necho after", ["cat <<- EOF", "echo after"]],
    ["cat <<A <<B\na\nA\nb $(id)\nB\nls", ["cat << A << B", "id", "ls"]],
    ["cat <<EOF; rm -rf x\nbody\nEOF", ["cat << EOF", "rm -rf x"]],
    ["cat <<EOF\nEOF \nEOF", ["cat << EOF"]],
    ["x=$(cat <<EOF\n$(id)\nEOF\n)", [
      "cat << EOF",
      "id",
      "x=$(cat <<EOF\n$(id)\nEOF\n)",
    ]],
  ];
  for (const [line, expected] of cases) {
    assert.deepEqual(texts(line), expected, JSON.stringify(line));
  }
  const r = parseShellCommand("cat <<EOF\n$(id)\nEOF");
  assert.ok(r.ok);
  assert.deepEqual(r.segments[1]!.via, ["<< body", "$( )"]);
});

Deno.test("shell parser: segments record how they were reached", () => {
  const r = parseShellCommand("sudo bash -c 'ls $(id)'");
  assert.ok(r.ok);
  assert.deepEqual(
    r.segments.map((s) => [s.text, s.via.join(" > ")]),
    [
      ["sudo bash -c 'ls $(id)'", ""],
      ["bash -c 'ls $(id)'", "sudo"],
      ["id", "sudo > bash -c > $( )"],
      ["ls $(id)", "sudo > bash -c"],
    ],
  );
  assert.deepEqual(r.segments[0]!.argv, ["sudo", "bash", "-c", "'ls $(id)'"]);
  const only = parseShellCommand("> out");
  assert.ok(only.ok);
  assert.deepEqual(only.segments[0]!.argv, []);
});

Deno.test("shell parser: what it cannot list with certainty is refused with a reason", () => {
  const cases: [string, RegExp][] = [
    ["echo 'unterminated", /unterminated single quote/],
    ['echo "unterminated', /unterminated double quote/],
    ["echo `id", /unterminated backquote/],
    ["echo $(id", /unterminated/],
    ["cat <<EOF", /here-document ending in "EOF" has no body/],
    ["cat <<EOF\nbody\nEO", /here-document ending in "EOF" is not terminated/],
    ["cat <<$X\nbody\n$X", /delimiter with an expansion/],
    ["cat <<EOF\n$(rm -rf x\nEOF", /unterminated/],
    ["eval 'rm -rf x'", /eval/],
    ["sudo eval ls", /eval/],
    ["$CMD args", /command name \$CMD is not a literal/],
    ['"$@"', /not a literal/],
    ["${RM:-rm} -rf x", /not a literal/],
    ["$(echo rm) -rf x", /not a literal/],
    ["*.sh", /not a literal/],
    ["{rm,-rf,x}", /not a literal/],
    ["xargs $CMD", /not a literal/],
    ["f() { rm -rf x; }; f", /function definitions/],
    ["a=(1 2 3)", /array assignments/],
    ["function f { ls; }", /function definitions/],
    ["case $x in a) rm x;; esac", /case statements/],
    ["select x in a; do ls; done", /select/],
    ["coproc ls", /coprocesses/],
    ["(( x++ ))", /arithmetic commands/],
    ["echo ${x:-$(rm -rf x)}", /inside \$\{ \}/],
    ["echo $(( $(rm -rf x) ))", /inside \$\(\( \)\)/],
    ["echo $((rm -rf x))", /not arithmetic/],
    ["env -S 'rm -rf x'", /env -S/],
    ["env --split-string='rm -rf x'", /split-string/],
    ["sudo --frobnicate rm -rf x", /unknown sudo option/],
    ["timeout --bogus 5 rm", /unknown timeout option/],
    ['bash -c "$SCRIPT"', /script of bash -c .* is not a literal/],
    ["bash -c", /has no script/],
    ["sh -c 'echo \"x'", /in the script of sh -c: unterminated double quote/],
    ["find . -exec rm {}", /not terminated/],
    ["echo )", /unbalanced/],
    ["(ls", /unterminated/],
    ["[[ -f x", /unterminated "\[\["/],
    ["ls >", /has no target/],
    ["echo $'\\cA'", /control escapes/],
  ];
  for (const [line, reason] of cases) {
    assert.match(refusal(line), reason, JSON.stringify(line));
  }
  const n = MAX_COMMAND_DEPTH + 1;
  for (
    const deep of [
      `echo ${"$(".repeat(n)}ls${")".repeat(n)}`,
      `${"( ".repeat(n)}ls${")".repeat(n)}`,
      `echo ${"$(echo ".repeat(100_000)}`,
    ]
  ) {
    assert.match(refusal(deep), /nest more than 16 levels/);
  }
});

Deno.test("shell parser: a refusal carries the offset where it stopped", () => {
  const r = parseShellCommand("git status && eval x");
  assert.ok(!r.ok);
  assert.ok(r.offset >= 14 && r.offset <= 20, `offset ${r.offset}`);
});

Deno.test("quoteShellWord round-trips through the parser", () => {
  for (
    const v of ["a", "", "a b", "it's", "$HOME", "`x`", "a\nb", "*", "-rf", "é"]
  ) {
    const r = parseShellCommand(`echo ${quoteShellWord(v)}`);
    assert.ok(r.ok);
    assert.equal(r.segments[0]!.text, `echo ${quoteShellWord(v)}`);
  }
});

/** A small deterministic PRNG (mulberry32). */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const DANGER = "rm -rf x";
const SAFE = ["git status", "ls -la", "echo ok", "cat README.md", "true"];
const SEPARATORS = [" && ", " || ", "; ", " | ", " & ", "\n", " |& "];

/** Puts a command into a random context that still runs it. */
function wrap(cmd: string, r: () => number, depth: number): string {
  if (depth === 0) return cmd;
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(r() * xs.length)]!;
  const inner = wrap(cmd, r, depth - 1);
  const contexts: ((c: string) => string)[] = [
    (c) => `(${c})`,
    (c) => `{ ${c}; }`,
    (c) => `echo $(${c})`,
    (c) => `echo "$(${c})"`,
    (c) => `X=$(${c})`,
    (c) => `cat <(${c})`,
    (c) => `${pick(SAFE)}${pick(SEPARATORS)}${c}`,
    (c) => `${c}${pick(SEPARATORS)}${pick(SAFE)}`,
    (c) => `sudo ${c}`,
    (c) => `env A=1 ${c}`,
    (c) => `nohup ${c}`,
    (c) => `timeout 5 ${c}`,
    (c) => `bash -c ${quoteShellWord(c)}`,
    (c) => `sh -c ${quoteShellWord(c)}`,
    (c) => `if true; then ${c}; fi`,
    (c) => `FOO=bar ${c}`,
  ];
  // wrappers only take a simple command: fall back to a subshell
  const ctx = pick(contexts);
  const simple = !/[;&|\n(){}$`<]/.test(inner);
  const needsSimple = [8, 9, 10, 11, 15].includes(contexts.indexOf(ctx));
  return needsSimple && !simple
    ? `bash -c ${quoteShellWord(inner)}`
    : ctx(inner);
}

Deno.test("property: a dangerous command in any context is a segment or the line is refused", () => {
  const r = rng(20261130);
  let parsed = 0;
  for (let n = 0; n < 2000; n++) {
    const line = wrap(DANGER, r, 1 + Math.floor(r() * 5));
    const result = parseShellCommand(line);
    if (!result.ok) continue;
    parsed++;
    assert.ok(
      result.segments.some((s) => s.text === DANGER),
      `${JSON.stringify(line)} hides "${DANGER}": ${
        JSON.stringify(result.segments.map((s) => s.text))
      }`,
    );
  }
  assert.ok(parsed > 1900, `most generated lines parse (${parsed})`);
});

Deno.test("property: a list of simple commands splits into exactly those commands", () => {
  const r = rng(7);
  for (let n = 0; n < 500; n++) {
    const count = 1 + Math.floor(r() * 6);
    const cmds = Array.from(
      { length: count },
      () => SAFE[Math.floor(r() * SAFE.length)]!,
    );
    const line = cmds.map((c, i) =>
      i === 0 ? c : `${SEPARATORS[Math.floor(r() * SEPARATORS.length)]}${c}`
    ).join("");
    assert.deepEqual(texts(line), cmds, JSON.stringify(line));
  }
});

Deno.test("property: a line cut inside a quote or substitution is refused, never shortened", () => {
  const line = `echo "a $(rm -rf x) b" 'c d' \`id\` $(ls)`;
  const spans: [string, string][] = [['"', '"'], ["'", "'"], ["`", "`"], [
    "$(ls",
    ")",
  ]];
  let checked = 0;
  for (const [open, close] of spans) {
    const from = line.indexOf(open);
    const to = line.indexOf(close, from + open.length);
    const opener = open.startsWith("$(") ? 2 : 1; // "$" alone is literal
    for (let cut = from + opener; cut <= to; cut++) {
      const head = line.slice(0, cut);
      assert.equal(parseShellCommand(head).ok, false, JSON.stringify(head));
      checked++;
    }
  }
  assert.ok(checked > 20, `${checked} cuts checked`);
  assert.ok(parseShellCommand(line).ok);
});

Deno.test("shell parser: a command named like an Object.prototype member is an ordinary command, not a keyword", () => {
  for (const name of Object.getOwnPropertyNames(Object.prototype)) {
    for (const line of [`${name} x`, `ls | ${name}`, `/bin/${name}`]) {
      const r = parseShellCommand(line);
      assert.ok(r.ok, `${line}: ${r.ok ? "" : r.reason}`);
    }
  }
  assert.match(refusal("case x in"), /case statements/);
  assert.match(refusal("ls | coproc x"), /coprocesses/);
});

Deno.test("shell parser: adversarial long lines parse in one pass (a quadratic scan would not finish)", () => {
  const n = 300_000;
  assert.equal(texts(`echo ${"[".repeat(n)}`)[0]!.length, n + 7); // quoted
  assert.equal(texts(`echo ${"a".repeat(n)}`)[0]!.length, n + 5);
  assert.match(refusal(`echo $((${"a".repeat(n)} b))`), /not arithmetic/);
  assert.equal(texts(`echo $((${"a".repeat(n)}))`).length, 1);
  assert.equal(texts(Array(20_000).fill("ls").join(" && ")).length, 20_000);
});

Deno.test("plainCommandText() answers only for lines that are their own one top-level segment", () => {
  // Every name the parser may treat apart: the case labels of its source
  // (the wrappers' switch among them, so a new wrapper is tried here), the
  // keywords, and the names Object.prototype has.
  const source = Deno.readTextFileSync(
    new URL("./shell_command.ts", import.meta.url),
  );
  const names = new Set<string>([
    ...[...source.matchAll(/case "([^"]+)":/g)].map((m) => m[1]!),
    ...["if", "then", "elif", "else", "fi", "while", "until", "do", "done"],
    ...["case", "esac", "select", "coproc", "function", "for", "in", "eval"],
    ...Object.getOwnPropertyNames(Object.prototype),
    ...["git", "rm", "ls", "x.y", "-c", "a,b", "@x", "%y", "+z", ":"],
  ]);
  const args = ["", "-Z", "x", "-exec", "-c", "5", "-u", "--", "-", "-n", "+"];
  let plain = 0;
  const check = (line: string) => {
    const text = plainCommandText(line);
    if (text === undefined) return;
    plain++;
    const r = parseShellCommand(line);
    assert.ok(r.ok, `${JSON.stringify(line)}: ${r.ok ? "" : r.reason}`);
    const top = r.segments.filter((s) => s.via.length === 0);
    assert.deepEqual(top.map((s) => s.text), [text], JSON.stringify(line));
    assert.ok(r.segments.every((s) => !s.via.includes("redirection")));
  };
  for (const name of names) {
    for (const first of [name, `/usr/bin/${name}`, `./${name}`]) {
      for (const a of args) {
        for (const b of args) check([first, a, b].filter((w) => w).join(" "));
      }
    }
  }
  assert.ok(plain > 1000, `only ${plain} plain lines`);
  for (const name of ["sudo", "env", "find", "bash", "if"]) {
    assert.equal(plainCommandText(`${name} x`), undefined, name);
    assert.equal(plainCommandText(`/bin/${name} x`), undefined, name);
  }
  // A name Object.prototype has is an ordinary command.
  assert.equal(plainCommandText("toString x"), "toString x");
  assert.equal(plainCommandText("git  status"), undefined);
  assert.equal(plainCommandText("FOO=1 git status"), undefined);
  assert.equal(plainCommandText("git status > x"), undefined);
  assert.equal(plainCommandText("git commit -m 'x y'"), undefined);
});
