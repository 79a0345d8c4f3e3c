/**
 * A conservative parser for bash command lines: it lists every simple
 * command a line may run (its *segments*), so that policy can judge each
 * one (`command` rules, config.md §6 extension) and the `exec` provider can
 * show them in its preview. Pure: no I/O, no environment.
 *
 * What becomes a segment:
 *
 * - every simple command of a list or pipeline (`|`, `|&`, `&&`, `||`,
 *   `;`, `&`, newlines), inside subshells `( )`, groups `{ }`, `if`,
 *   `while`, `until` and `for` bodies, `[[ ]]` tests;
 * - the commands inside command substitutions (`$( )`, backticks) and
 *   process substitutions (`<( )`, `>( )`), wherever they appear (in an
 *   argument, an assignment, a redirection target, a double-quoted string);
 * - for a wrapper, both the wrapper as written and the command it runs:
 *   `sudo -u bob rm -rf x` gives `sudo -u bob rm -rf x` and `rm -rf x`. The
 *   wrappers are `env`, `sudo`, `xargs`, `nohup`, `time`, `timeout`,
 *   `nice`, `stdbuf`, `command`, `builtin`, `exec`, `find -exec/-execdir/
 *   -ok/-okdir`, and `sh|bash|dash|zsh|ksh -c '<script>'`, whose script is
 *   parsed recursively;
 * - a command named by a path is also judged under its bare name:
 *   `/bin/rm -rf x` gives `/bin/rm -rf x` and `rm -rf x`;
 * - a command with prefix assignments gives the command as written and the
 *   command without them: `FOO=1 git status` gives both `FOO=1 git status`
 *   and `git status`. A line of only assignments or redirections
 *   (`PATH=/tmp/x`, `> out`) is a segment too;
 * - the command substitutions in the body of a here-document whose
 *   delimiter is unquoted (`<<EOF`); a quoted one (`<<'EOF'`) is data;
 * - every redirection that writes a file (`>`, `>>`, `>|`, `&>`, `&>>`,
 *   `<>`, `>& file`) is a segment of its own and only that, never part of
 *   the command's text: `cat x > notes.md` gives `cat x` and `> notes.md`,
 *   so that a rule allowing `cat *` does not allow overwriting files, and
 *   a rule allowing `> /dev/null` does not allow the command. Descriptor
 *   duplications (`2>&1`, `>&2`) and input redirections (`< in`) stay in
 *   the command's text.
 *
 * Each segment has a normalized text: its words as the shell sees them,
 * literal words re-quoted canonically (bare when they hold only
 * `A-Za-z0-9_@%+=:,./-`, else single-quoted), words with expansions as
 * written, then its other redirections (`2>&1`, `< in.txt`), joined by single
 * spaces; `[`, `[[`, `]`, `]]` stay bare. `git  "status"` and `git status`
 * normalize alike.
 *
 * Anything that cannot be listed with certainty is refused with a reason
 * ({@linkcode UnparseableCommand}), so that policy can fail closed:
 * unterminated quotes, substitutions or here-documents, `eval`, a command
 * name that is not a literal word (`$CMD args`, `"$@"`, `*`, `{a,b}`),
 * `case`, `select`, `coproc`, function definitions, `(( ))` arithmetic
 * commands, command substitution inside `${ }` or `$(( ))`, `env -S`,
 * unknown options of a wrapper, a non-literal `bash -c` script, and nesting
 * deeper than {@linkcode MAX_COMMAND_DEPTH}.
 *
 * @example The known bypass shapes all surface the dangerous segment
 * ```ts
 * import { parseShellCommand } from "./shell_command.ts";
 * import assert from "node:assert/strict";
 *
 * const texts = (line: string) => {
 *   const r = parseShellCommand(line);
 *   assert.ok(r.ok);
 *   return r.segments.map((s) => s.text);
 * };
 * assert.deepEqual(texts("git status && rm -rf x"), ["git status", "rm -rf x"]);
 * assert.deepEqual(texts("ls $(rm -rf x)"), ["rm -rf x", "ls $(rm -rf x)"]);
 * assert.deepEqual(texts(`sh -c "rm -rf x"`), ["sh -c 'rm -rf x'", "rm -rf x"]);
 * assert.equal(parseShellCommand("eval $X").ok, false);
 * ```
 *
 * @module
 */

/** How deep substitutions and `sh -c` scripts may nest before refusal. */
export const MAX_COMMAND_DEPTH = 16;

/** One simple command a line may run. */
export interface CommandSegment {
  /** The normalized text policy patterns are matched against. */
  readonly text: string;
  /**
   * The command's words, normalized like {@linkcode text} (the command name
   * first); empty for a segment of only assignments or redirections.
   */
  readonly argv: readonly string[];
  /**
   * How the segment was reached, outermost first, e.g. `["$( )"]`,
   * `["sudo", "bash -c"]`, `["assignment"]`; empty at the top level.
   */
  readonly via: readonly string[];
}

/** A line whose segments are known. */
export interface ParsedCommand {
  /** Parsed. */
  readonly ok: true;
  /** Every simple command, in source order (substitutions first). */
  readonly segments: readonly CommandSegment[];
}

/** A line that cannot be listed with certainty. */
export interface UnparseableCommand {
  /** Not parsed. */
  readonly ok: false;
  /** Why, in a sentence. */
  readonly reason: string;
  /** The 0-based offset in the outermost line where parsing stopped. */
  readonly offset: number;
}

/** What {@linkcode parseShellCommand} returns. */
export type ShellParseResult = ParsedCommand | UnparseableCommand;

class Unparseable extends Error {
  constructor(message: string, readonly offset: number) {
    super(message);
  }
}

type Part = { readonly lit: string } | { readonly exp: string };

interface Word {
  readonly parts: readonly Part[];
  /** The source text of the word. */
  readonly raw: string;
}

function isLiteral(w: Word): boolean {
  return w.parts.every((p) => "lit" in p);
}

function valueOf(w: Word): string {
  return w.parts.map((p) => "lit" in p ? p.lit : p.exp).join("");
}

const SAFE_WORD_REGEXP = /^[A-Za-z0-9_@%+=:,./-]+$/;
const BRACKETS = new Set(["[", "[[", "]", "]]"]);

/**
 * Quotes a literal word canonically: bare when it is made only of
 * `A-Za-z0-9_@%+=:,./-`, else in single quotes (`'` written `'\''`).
 *
 * @example Usage
 * ```ts
 * import { quoteShellWord } from "./shell_command.ts";
 * import assert from "node:assert/strict";
 *
 * assert.equal(quoteShellWord("status"), "status");
 * assert.equal(quoteShellWord("fix bug"), "'fix bug'");
 * assert.equal(quoteShellWord("it's"), "'it'\\''s'");
 * ```
 *
 * @param value The word's value.
 * @returns The word as the shell would read it back.
 */
export function quoteShellWord(value: string): string {
  if (value === "") return "''";
  if (SAFE_WORD_REGEXP.test(value) || BRACKETS.has(value)) return value;
  return `'${value.replaceAll("'", `'\\''`)}'`;
}

function render(w: Word): string {
  return isLiteral(w) ? quoteShellWord(valueOf(w)) : w.raw;
}

const ASSIGNMENT_REGEXP = /^[A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])?\+?=/;

function isAssignment(w: Word): boolean {
  const first = w.parts[0];
  return first !== undefined && "lit" in first &&
    ASSIGNMENT_REGEXP.test(w.raw) && ASSIGNMENT_REGEXP.test(first.lit);
}

/** Two words in a row: not arithmetic (`$((rm -rf x))`). */
const ARITHMETIC_WORDS_REGEXP =
  /(?<![A-Za-z0-9_])[A-Za-z_][A-Za-z0-9_]*\s+[A-Za-z_$]/;

const BLANK = new Set([" ", "\t"]);
const META = new Set([" ", "\t", "\n", "|", "&", ";", "(", ")", "<", ">"]);

/** Reserved words skipped at a command's start (structure, not commands). */
const SKIPPED_KEYWORDS = new Set([
  "if",
  "then",
  "elif",
  "else",
  "fi",
  "while",
  "until",
  "do",
  "done",
  "!",
  "{",
  "}",
]);

/**
 * Keywords refused, with the reason. Read through {@linkcode refusalOf}: a
 * command word is any text, and an inherited name (`toString`,
 * `constructor`) is not a keyword.
 */
const REFUSED_KEYWORDS: Readonly<Record<string, string>> = {
  case: "case statements are not supported",
  esac: "case statements are not supported",
  select: "select loops are not supported",
  coproc: "coprocesses are not supported",
  function: "function definitions are not supported",
  "((": "arithmetic commands (( )) are not supported",
};

/** Why a keyword is refused, or `undefined` when `word` is none. */
function refusalOf(word: string): string | undefined {
  return Object.hasOwn(REFUSED_KEYWORDS, word)
    ? REFUSED_KEYWORDS[word]
    : undefined;
}

class Parser {
  i = 0;
  /** Open subshells and substitutions in this parser. */
  level = 0;
  /** Redirections of the current simple command that write files. */
  writes: string[] = [];
  /** Here-documents whose bodies follow the current line. */
  heredocs: {
    delimiter: string;
    quoted: boolean;
    stripTabs: boolean;
    via: readonly string[];
  }[] = [];
  readonly segments: CommandSegment[] = [];

  constructor(
    readonly src: string,
    readonly depth: number,
    readonly via: readonly string[],
    readonly base: number,
  ) {
    if (depth > MAX_COMMAND_DEPTH) {
      this.fail(
        `commands nest more than ${MAX_COMMAND_DEPTH} levels deep`,
      );
    }
  }

  fail(reason: string, at: number = this.i): never {
    throw new Unparseable(reason, this.base + at);
  }

  peek(k = 0): string {
    return this.src[this.i + k] ?? "";
  }

  /** A list of commands up to `closer` (`)` of a subshell or `$( )`) or EOF. */
  parseList(closer: ")" | "", via: readonly string[]): void {
    if (closer) {
      if (this.depth + ++this.level > MAX_COMMAND_DEPTH) {
        this.fail(`commands nest more than ${MAX_COMMAND_DEPTH} levels deep`);
      }
      try {
        this.parseListBody(closer, via);
      } finally {
        this.level--;
      }
      return;
    }
    this.parseListBody(closer, via);
  }

  parseListBody(closer: ")" | "", via: readonly string[]): void {
    for (;;) {
      this.skipSeparators();
      const c = this.peek();
      if (c === "") {
        if (closer) this.fail(`unterminated "${closer === ")" ? "(" : ""}"`);
        return;
      }
      if (c === ")") {
        if (!closer) this.fail('unbalanced ")"');
        this.i++;
        return;
      }
      if (c === "(") {
        if (this.peek(1) === "(") this.fail(REFUSED_KEYWORDS["(("]!);
        this.i++;
        this.parseList(")", via);
        continue;
      }
      this.parseSimpleCommand(via);
    }
  }

  skipBlanks(): void {
    for (;;) {
      const c = this.peek();
      if (BLANK.has(c)) this.i++;
      else if (c === "\\" && this.peek(1) === "\n") this.i += 2;
      else return;
    }
  }

  skipComment(): void {
    while (this.peek() !== "" && this.peek() !== "\n") this.i++;
  }

  skipSeparators(): void {
    for (;;) {
      this.skipBlanks();
      const c = this.peek();
      if (c === "#") this.skipComment();
      else if (c === ";" && this.peek(1) === ";") {
        this.fail(REFUSED_KEYWORDS.case!);
      } else if (c === "\n") {
        this.i++;
        if (this.heredocs.length > 0) this.readHeredocs();
      } else if (c === ";" || c === "&" || c === "|") this.i++;
      else return;
    }
  }

  /** A whole line (or script): a list up to the end, no here-document left open. */
  parseAll(via: readonly string[]): void {
    this.parseList("", via);
    if (this.heredocs.length > 0) {
      this.fail(
        `the here-document ending in ${
          JSON.stringify(this.heredocs[0]!.delimiter)
        } has no body (no line follows the command)`,
      );
    }
  }

  /** `<<WORD` / `<<-WORD`: the body is read after the end of the line. */
  parseHeredocStart(
    fd: string,
    op: string,
    start: number,
    via: readonly string[],
  ): string {
    this.skipBlanks();
    const c = this.peek();
    if (c === "" || META.has(c)) {
      this.fail(`the here-document "${fd}${op}" has no delimiter`, start);
    }
    const word = this.parseWord(via);
    if (word.parts.some((p) => "exp" in p && /[$`]/.test(p.exp))) {
      this.fail(
        "a here-document delimiter with an expansion is not supported",
        start,
      );
    }
    this.heredocs.push({
      delimiter: word.parts.map((p) => "lit" in p ? p.lit : p.exp).join(""),
      quoted: /['"\\]/.test(word.raw),
      stripTabs: op === "<<-",
      via: [...via, "<< body"],
    });
    return `${fd}${op} ${render(word)}`;
  }

  /**
   * Reads the bodies of the pending here-documents, which start right after
   * the newline just consumed. A body with an unquoted delimiter undergoes
   * expansion, so its command substitutions are segments; a quoted one is
   * plain data.
   */
  readHeredocs(): void {
    const pending = this.heredocs;
    this.heredocs = [];
    for (const h of pending) {
      const bodyStart = this.i;
      let lineStart = this.i;
      for (;;) {
        if (lineStart >= this.src.length) {
          this.fail(
            `the here-document ending in ${
              JSON.stringify(h.delimiter)
            } is not terminated`,
            bodyStart,
          );
        }
        const nl = this.src.indexOf("\n", lineStart);
        const lineEnd = nl < 0 ? this.src.length : nl;
        let line = this.src.slice(lineStart, lineEnd);
        if (h.stripTabs) line = line.replace(/^\t+/, "");
        if (line === h.delimiter) {
          if (!h.quoted) {
            const body = this.src.slice(bodyStart, lineStart);
            const sub = new Parser(
              body,
              this.depth + 1,
              h.via,
              this.base + bodyStart,
            );
            sub.parseHeredocBody(h.via);
            this.segments.push(...sub.segments);
          }
          this.i = nl < 0 ? this.src.length : nl + 1;
          break;
        }
        lineStart = lineEnd + 1;
      }
    }
  }

  /** Scans an expanding here-document body for substitutions. */
  parseHeredocBody(via: readonly string[]): void {
    const parts: Part[] = [];
    while (this.i < this.src.length) {
      const c = this.peek();
      if (c === "\\") this.i += 2;
      else if (c === "$") this.parseDollar(parts, via, true);
      else if (c === "`") this.parseBackticks(via);
      else this.i++;
    }
  }

  isRedirectionStart(): boolean {
    let k = 0;
    while (/[0-9]/.test(this.peek(k))) k++;
    const c = this.peek(k);
    if (c === "<" || c === ">") return this.peek(k + 1) !== "(" || k > 0;
    return k === 0 && c === "&" && this.peek(1) === ">";
  }

  parseRedirection(via: readonly string[]): string {
    const start = this.i;
    let fd = "";
    while (/[0-9]/.test(this.peek())) fd += this.src[this.i++];
    const ops = [
      "&>>",
      "&>",
      "<<<",
      "<<",
      "<>",
      "<&",
      ">>",
      ">&",
      ">|",
      "<",
      ">",
    ];
    let op = ops.find((o) => this.src.startsWith(o, this.i))!;
    if (op === "<<") {
      if (this.peek(2) === "-") op = "<<-";
      this.i += op.length;
      return this.parseHeredocStart(fd, op, start, via);
    }
    this.i += op.length;
    this.skipBlanks();
    const c = this.peek();
    const substitution = (c === "<" || c === ">") && this.peek(1) === "(";
    if (c === "" || (META.has(c) && !substitution)) {
      this.fail(`the redirection "${fd}${op}" has no target`, start);
    }
    const target = this.parseWord(via);
    const dup = op === ">&" || op === "<&";
    const text = `${fd}${op}${dup ? "" : " "}${render(target)}`;
    // `>&2`, `2>&1`, `>&-` duplicate or close a descriptor; `>& file`
    // writes a file like `&>`.
    const toFile = !dup || !/^([0-9]+|-)$/.test(valueOf(target));
    if (op.includes(">") && toFile) this.writes.push(text);
    return text;
  }

  parseSimpleCommand(via: readonly string[]): void {
    const assigns: Word[] = [];
    const words: Word[] = [];
    const redirs: string[] = [];
    const outerWrites = this.writes;
    this.writes = [];
    let test = false; // inside [[ ]]
    for (;;) {
      this.skipBlanks();
      const c = this.peek();
      if (c === "" || c === "\n" || c === ";" || c === ")") {
        if (c === ")" && test) {
          words.push({ parts: [{ exp: c }], raw: c });
          this.i++;
          continue;
        }
        break;
      }
      if (c === "&" || c === "|") {
        if (c === "&" && this.peek(1) === ">") {
          redirs.push(this.parseRedirection(via));
          continue;
        }
        if (test && this.peek(1) === c) {
          words.push({ parts: [{ exp: c + c }], raw: c + c });
          this.i += 2;
          continue;
        }
        break;
      }
      if (c === "#") {
        this.skipComment();
        break;
      }
      if (test && (c === "(" || c === "<" || c === ">")) {
        words.push({ parts: [{ exp: c }], raw: c });
        this.i++;
        continue;
      }
      if (c === "(") {
        if (words.length > 0 || assigns.length > 0 || redirs.length > 0) {
          this.fail(
            words.length === 0 && assigns.at(-1)?.raw.endsWith("=")
              ? "array assignments are not supported"
              : "function definitions are not supported",
          );
        }
        if (this.peek(1) === "(") this.fail(REFUSED_KEYWORDS["(("]!);
        this.i++;
        this.parseList(")", via); // a subshell after a keyword: `if (x)`
        continue;
      }
      if (this.isRedirectionStart()) {
        redirs.push(this.parseRedirection(via));
        continue;
      }
      const wordStart = this.i;
      const w = this.parseWord(via);
      if (words.length === 0 && !test) {
        if (assigns.length === 0 && redirs.length === 0) {
          if (SKIPPED_KEYWORDS.has(w.raw)) continue;
          const refused = refusalOf(w.raw);
          if (refused !== undefined) this.fail(refused, wordStart);
          if (w.raw === "for") {
            this.skipForHeader();
            continue;
          }
          if (w.raw === "[[") test = true;
        }
        if (isAssignment(w)) {
          assigns.push(w);
          continue;
        }
      }
      if (test && w.raw === "]]") test = false;
      words.push(w);
    }
    if (test) this.fail('unterminated "[["');
    const writes = this.writes;
    this.writes = outerWrites;
    // A redirection that writes a file is never part of another segment's
    // text: a pattern about it (`> /dev/null`) cannot cover the command.
    const written = new Set(writes);
    const kept = redirs.filter((r) => !written.has(r));
    if (words.length === 0) {
      const text = [...assigns.map(render), ...kept];
      if (text.length > 0) this.push(text, [], via);
      this.pushWrites(writes, via);
      return;
    }
    this.checkName(words[0]!);
    const argv = words.map(render);
    this.push([...assigns.map(render), ...argv, ...kept], argv, via);
    this.pushWrites(writes, via);
    let inner = via;
    if (assigns.length > 0) {
      inner = [...via, "assignment"];
      this.push([...argv, ...kept], argv, inner);
    }
    this.pushBareName(argv, kept, inner);
    this.unwrap(words, inner);
  }

  /**
   * A command named by a path (`/bin/rm`, `./tool`) is also judged under
   * its bare name (`rm`), so that a rule about `rm` covers it.
   */
  pushBareName(
    argv: readonly string[],
    redirs: readonly string[],
    via: readonly string[],
  ): void {
    const name = argv[0]!;
    if (!name.includes("/")) return;
    const base = name.slice(name.lastIndexOf("/") + 1);
    if (base === "" || base.startsWith("'")) return;
    const bare = [base, ...argv.slice(1)];
    this.push([...bare, ...redirs], bare, [...via, "path"]);
  }

  /** Each redirection that writes a file, as a segment of its own. */
  pushWrites(writes: readonly string[], via: readonly string[]): void {
    for (const w of writes) this.push([w], [], [...via, "redirection"]);
  }

  /** Skips `for NAME [in WORDS]` up to its `;`, newline or `do`. */
  skipForHeader(): void {
    this.skipBlanks();
    if (this.peek() === "(") this.fail(REFUSED_KEYWORDS["(("]!);
    for (;;) {
      this.skipBlanks();
      const c = this.peek();
      if (c === "" || c === "\n" || c === ";") return;
      if (META.has(c)) this.fail(`unexpected "${c}" in a for loop header`);
      const w = this.parseWord(this.via);
      if (w.raw === "do") return;
    }
  }

  checkName(w: Word): void {
    if (!isLiteral(w)) {
      this.fail(
        `the command name ${w.raw} is not a literal word, so the command it runs is unknown`,
      );
    }
    const name = valueOf(w);
    if (name === "eval") {
      this.fail("eval runs a string built at run time as a command");
    }
    const refused = refusalOf(name);
    if (refused !== undefined && w.raw === name) this.fail(refused);
  }

  push(
    texts: readonly string[],
    argv: readonly string[],
    via: readonly string[],
  ): void {
    this.segments.push({ text: texts.join(" "), argv, via });
  }

  /** The command a wrapper runs, as a segment (recursively). */
  unwrap(words: readonly Word[], via: readonly string[]): void {
    const name = valueOf(words[0]!);
    const base = name.includes("/")
      ? name.slice(name.lastIndexOf("/") + 1)
      : name;
    const inner = (words: readonly Word[], label: string) => {
      // `timeout 5 FOO=1 cmd` fails at run time, but judge `cmd` anyway
      let k = 0;
      while (k < words.length && isAssignment(words[k]!)) k++;
      const rest = words.slice(k);
      if (rest.length === 0) return;
      this.checkName(rest[0]!);
      const argv = rest.map(render);
      const v = [...via, label];
      this.push(argv, argv, v);
      this.pushBareName(argv, [], v);
      this.unwrap(rest, v);
    };
    const opts = (spec: OptionSpec, label: string): number =>
      parseOptions(words, spec, label, (r) => this.fail(r));
    switch (base) {
      case "env": {
        let i = opts(ENV_OPTIONS, "env");
        while (i < words.length && isAssignment(words[i]!)) i++;
        inner(words.slice(i), "env");
        return;
      }
      case "sudo": {
        let i = opts(SUDO_OPTIONS, "sudo");
        while (i < words.length && isAssignment(words[i]!)) i++;
        inner(words.slice(i), "sudo");
        return;
      }
      case "xargs": {
        const i = opts(XARGS_OPTIONS, "xargs");
        const rest = words.slice(i);
        inner(
          rest.length > 0 ? rest : [{ parts: [{ lit: "echo" }], raw: "echo" }],
          "xargs",
        );
        return;
      }
      case "nohup":
      case "builtin":
        inner(words.slice(opts({ flags: "", withArg: "" }, base)), base);
        return;
      case "time":
        inner(words.slice(opts(TIME_OPTIONS, "time")), "time");
        return;
      case "command":
        inner(
          words.slice(opts({ flags: "pvV", withArg: "" }, "command")),
          "command",
        );
        return;
      case "exec":
        inner(words.slice(opts({ flags: "cl", withArg: "a" }, "exec")), "exec");
        return;
      case "nice": {
        let i = 1;
        if (i < words.length && /^-[0-9]+$/.test(valueOf(words[i]!))) i++;
        else i = opts(NICE_OPTIONS, "nice");
        inner(words.slice(i), "nice");
        return;
      }
      case "stdbuf":
        inner(words.slice(opts(STDBUF_OPTIONS, "stdbuf")), "stdbuf");
        return;
      case "timeout": {
        const i = opts(TIMEOUT_OPTIONS, "timeout");
        if (i >= words.length) return;
        inner(words.slice(i + 1), "timeout");
        return;
      }
      case "sh":
      case "bash":
      case "dash":
      case "zsh":
      case "ksh": {
        this.unwrapShell(words, base, via);
        return;
      }
      case "find": {
        for (let i = 1; i < words.length; i++) {
          const v = valueOf(words[i]!);
          if (!["-exec", "-execdir", "-ok", "-okdir"].includes(v)) continue;
          let j = i + 1;
          while (j < words.length && !isFindTerminator(words[j]!)) j++;
          if (j >= words.length) {
            this.fail(`find ${v} is not terminated by ";" or "+"`);
          }
          if (j === i + 1) this.fail(`find ${v} has no command`);
          inner(words.slice(i + 1, j), `find ${v}`);
          i = j;
        }
        return;
      }
    }
  }

  unwrapShell(
    words: readonly Word[],
    shell: string,
    via: readonly string[],
  ): void {
    let script: Word | undefined;
    let i = 1;
    let c = false;
    for (; i < words.length; i++) {
      const w = words[i]!;
      const v = valueOf(w);
      if (!isLiteral(w)) {
        if (c) {
          script = w;
          break;
        }
        return; // `bash "$file"`: a script file, not a -c string
      }
      if (v === "--" || v === "-") {
        i++;
        break;
      }
      if (/^[-+]o$/.test(v)) {
        i++;
        continue;
      }
      if (/^--[a-z-]+$/.test(v)) continue;
      if (/^[-+][A-Za-z]+$/.test(v)) {
        if (v.startsWith("-") && v.includes("c")) c = true;
        continue;
      }
      break;
    }
    if (!c) return; // `bash script.sh`, `bash -s`: the segment stands alone
    script ??= words[i];
    if (script === undefined) this.fail(`${shell} -c has no script`);
    if (!isLiteral(script)) {
      this.fail(
        `the script of ${shell} -c (${script.raw}) is not a literal string`,
      );
    }
    const label = `${shell} -c`;
    const sub = new Parser(
      valueOf(script),
      this.depth + 1,
      [...via, label],
      this.base + this.i,
    );
    try {
      sub.parseAll([...via, label]);
    } catch (err) {
      if (err instanceof Unparseable) {
        this.fail(`in the script of ${label}: ${err.message}`);
      }
      throw err;
    }
    this.segments.push(...sub.segments);
  }

  parseWord(via: readonly string[]): Word {
    const start = this.i;
    const parts: Part[] = [];
    const lit = (s: string) => parts.push({ lit: s });
    const exp = (s: string) => parts.push({ exp: s });
    for (;;) {
      const c = this.peek();
      if (c === "") break;
      if (
        (c === "<" || c === ">") && this.peek(1) === "(" && this.i === start
      ) {
        const s = this.i;
        this.i += 2;
        this.parseList(")", [...via, `${c}( )`]);
        exp(this.src.slice(s, this.i));
        continue;
      }
      if (META.has(c)) break;
      switch (c) {
        case "\\":
          if (this.peek(1) === "\n") this.i += 2;
          else if (this.peek(1) === "") {
            lit("\\");
            this.i++;
          } else {
            lit(this.peek(1));
            this.i += 2;
          }
          break;
        case "'": {
          const end = this.src.indexOf("'", this.i + 1);
          if (end < 0) this.fail("unterminated single quote");
          lit(this.src.slice(this.i + 1, end));
          this.i = end + 1;
          break;
        }
        case '"':
          this.i++;
          this.parseDoubleQuoted(parts, via);
          break;
        case "$":
          this.parseDollar(parts, via);
          break;
        case "`":
          exp(this.parseBackticks(via));
          break;
        case "~":
          if (this.i === start) exp("~");
          else lit("~");
          this.i++;
          break;
        case "*":
        case "?":
        case "[":
        case "{":
        case "}":
          // globs and brace expansion: not literal (unless the whole word
          // is a lone brace, a reserved word)
          if ((c === "{" || c === "}") && this.isLoneBrace(start)) lit(c);
          else if (c === "[" && !this.closesBracket()) lit(c);
          else exp(c);
          this.i++;
          break;
        default:
          lit(c);
          this.i++;
      }
    }
    return { parts: mergeLiterals(parts), raw: this.src.slice(start, this.i) };
  }

  /** Where the last bracket scan stopped, and what it found. */
  bracketScan = { from: -1, to: -1, closes: false };

  /** Whether a `[` starts a glob bracket (a `]` follows in the word). */
  closesBracket(): boolean {
    const scan = this.bracketScan;
    // a scan from an earlier `[` of the same run answers for this one
    if (this.i > scan.from && this.i < scan.to) return scan.closes;
    let k = this.i + 1;
    let closes = false;
    for (; k < this.src.length; k++) {
      const c = this.src[k]!;
      if (c === "]") {
        closes = true;
        break;
      }
      if (META.has(c)) break;
    }
    this.bracketScan = { from: this.i, to: k, closes };
    return closes;
  }

  isLoneBrace(start: number): boolean {
    const next = this.peek(1);
    return this.i === start && (next === "" || META.has(next));
  }

  parseDoubleQuoted(parts: Part[], via: readonly string[]): void {
    for (;;) {
      const c = this.peek();
      if (c === "") this.fail("unterminated double quote");
      if (c === '"') {
        this.i++;
        if (parts.length === 0) parts.push({ lit: "" });
        return;
      }
      if (c === "\\") {
        const n = this.peek(1);
        if (n === "\n") this.i += 2;
        else if ('$`"\\'.includes(n) && n !== "") {
          parts.push({ lit: n });
          this.i += 2;
        } else {
          parts.push({ lit: "\\" });
          this.i++;
        }
        continue;
      }
      if (c === "$") {
        this.parseDollar(parts, via, true);
        continue;
      }
      if (c === "`") {
        parts.push({ exp: this.parseBackticks(via) });
        continue;
      }
      parts.push({ lit: c });
      this.i++;
    }
  }

  parseDollar(parts: Part[], via: readonly string[], quoted = false): void {
    const s = this.i;
    const n = this.peek(1);
    if (n === "'" && !quoted) {
      this.i += 2;
      parts.push({ lit: this.parseAnsiC() });
      return;
    }
    if (n === '"' && !quoted) {
      this.i += 2;
      this.parseDoubleQuoted(parts, via);
      return;
    }
    if (n === "(" && this.peek(2) === "(") {
      const end = this.matchingClose(this.i + 1, "(", ")");
      // `$((x) )` is a command substitution of a subshell; `$(( ))` with
      // adjacent closing parentheses is arithmetic.
      if (this.src[end - 1] === ")") {
        const body = this.src.slice(this.i + 3, end - 1);
        if (body.includes("$(") || body.includes("`")) {
          this.fail("command substitution inside $(( )) is not supported");
        }
        if (ARITHMETIC_WORDS_REGEXP.test(body)) {
          this.fail(
            "$(( )) holds words that are not arithmetic, so its meaning is ambiguous",
          );
        }
        this.i = end + 1;
        parts.push({ exp: this.src.slice(s, this.i) });
        return;
      }
    }
    if (n === "(") {
      this.i += 2;
      this.parseList(")", [...via, "$( )"]);
      parts.push({ exp: this.src.slice(s, this.i) });
      return;
    }
    if (n === "{") {
      const end = this.matchingClose(this.i + 1, "{", "}");
      const body = this.src.slice(this.i + 2, end);
      if (body.includes("$(") || body.includes("`")) {
        this.fail("command substitution inside ${ } is not supported");
      }
      this.i = end + 1;
      parts.push({ exp: this.src.slice(s, this.i) });
      return;
    }
    const name = /^(?:[A-Za-z_][A-Za-z0-9_]*|[0-9@*#?$!-])/.exec(
      this.src.slice(this.i + 1),
    );
    if (name) {
      this.i += 1 + name[0].length;
      parts.push({ exp: this.src.slice(s, this.i) });
      return;
    }
    parts.push({ lit: "$" });
    this.i++;
  }

  /** The offset of the closer matching the opener at `open` (quotes aware). */
  matchingClose(open: number, opener: string, closer: string): number {
    let depth = 0;
    for (let k = open; k < this.src.length; k++) {
      const c = this.src[k]!;
      if (c === "\\") {
        k++;
        continue;
      }
      if (c === "'") {
        const end = this.src.indexOf("'", k + 1);
        if (end < 0) break;
        k = end;
        continue;
      }
      if (c === opener) depth++;
      else if (c === closer) {
        depth--;
        if (depth === 0) return k;
      }
    }
    this.fail(`unterminated "$${opener}"`);
  }

  parseAnsiC(): string {
    let out = "";
    for (;;) {
      const c = this.peek();
      if (c === "") this.fail("unterminated $'...' string");
      this.i++;
      if (c === "'") return out;
      if (c !== "\\") {
        out += c;
        continue;
      }
      const e = this.peek();
      this.i++;
      const simple: Record<string, string> = {
        n: "\n",
        t: "\t",
        r: "\r",
        a: "\x07",
        b: "\b",
        e: "\x1b",
        E: "\x1b",
        f: "\f",
        v: "\v",
        "\\": "\\",
        "'": "'",
        '"': '"',
        "?": "?",
      };
      if (e in simple) {
        out += simple[e];
        continue;
      }
      const hex = (re: RegExp) => {
        const m = re.exec(this.src.slice(this.i));
        if (!m) return undefined;
        this.i += m[0].length;
        return m[0];
      };
      let code: string | undefined;
      if (e === "x") code = hex(/^[0-9a-fA-F]{1,2}/);
      else if (e === "u") code = hex(/^[0-9a-fA-F]{1,4}/);
      else if (e === "U") code = hex(/^[0-9a-fA-F]{1,8}/);
      if (code !== undefined) {
        out += String.fromCodePoint(parseInt(code, 16));
        continue;
      }
      if (/[0-7]/.test(e)) {
        const m = /^[0-7]{0,2}/.exec(this.src.slice(this.i))![0];
        this.i += m.length;
        out += String.fromCharCode(parseInt(e + m, 8));
        continue;
      }
      if (e === "c") this.fail("$'\\c' control escapes are not supported");
      out += `\\${e}`;
    }
  }

  parseBackticks(via: readonly string[]): string {
    const s = this.i;
    this.i++;
    let inner = "";
    for (;;) {
      const c = this.peek();
      if (c === "") this.fail("unterminated backquote", s);
      this.i++;
      if (c === "`") break;
      if (c === "\\" && "$`\\".includes(this.peek()) && this.peek() !== "") {
        inner += this.peek();
        this.i++;
        continue;
      }
      inner += c;
    }
    const sub = new Parser(inner, this.depth + 1, via, this.base + s + 1);
    sub.parseAll([...via, "` `"]);
    this.segments.push(...sub.segments);
    return this.src.slice(s, this.i);
  }
}

function mergeLiterals(parts: readonly Part[]): Part[] {
  const out: Part[] = [];
  for (const p of parts) {
    const last = out.at(-1);
    if ("lit" in p && last !== undefined && "lit" in last) {
      out[out.length - 1] = { lit: last.lit + p.lit };
    } else out.push(p);
  }
  return out;
}

function isFindTerminator(w: Word): boolean {
  const v = valueOf(w);
  return isLiteral(w) && (v === ";" || v === "+");
}

interface OptionSpec {
  /** Single-letter flags without an argument. */
  readonly flags: string;
  /** Single-letter options that take an argument. */
  readonly withArg: string;
  /** Long options without an argument. */
  readonly long?: readonly string[];
  /** Long options that take an argument (`--x=v` or `--x v`). */
  readonly longWithArg?: readonly string[];
  /** Flags whose argument is optional and must be attached (`-i{}`). */
  readonly optionalArg?: string;
}

const ENV_OPTIONS: OptionSpec = {
  flags: "i0v",
  withArg: "uC",
  long: ["--ignore-environment", "--null", "--debug"],
  longWithArg: ["--unset", "--chdir"],
};
const SUDO_OPTIONS: OptionSpec = {
  flags: "AbBEHiKklnPSsVve",
  withArg: "CDghpRrTtUu",
  long: [
    "--askpass",
    "--background",
    "--bell",
    "--preserve-env",
    "--set-home",
    "--login",
    "--remove-timestamp",
    "--reset-timestamp",
    "--non-interactive",
    "--preserve-groups",
    "--stdin",
    "--shell",
  ],
  longWithArg: [
    "--close-from",
    "--chdir",
    "--group",
    "--host",
    "--prompt",
    "--chroot",
    "--role",
    "--type",
    "--command-timeout",
    "--other-user",
    "--user",
  ],
};
const XARGS_OPTIONS: OptionSpec = {
  flags: "0oprtx",
  withArg: "aEdILnPs",
  optionalArg: "eil",
  long: [
    "--null",
    "--open-tty",
    "--interactive",
    "--no-run-if-empty",
    "--verbose",
    "--exit",
  ],
  longWithArg: [
    "--arg-file",
    "--delimiter",
    "--replace",
    "--max-lines",
    "--max-args",
    "--max-procs",
    "--max-chars",
    "--process-slot-var",
    "--eof",
  ],
};
const TIME_OPTIONS: OptionSpec = {
  flags: "pvaq",
  withArg: "fo",
  long: ["--portability", "--verbose", "--append", "--quiet"],
  longWithArg: ["--format", "--output"],
};
const NICE_OPTIONS: OptionSpec = {
  flags: "",
  withArg: "n",
  longWithArg: ["--adjustment"],
};
const STDBUF_OPTIONS: OptionSpec = {
  flags: "",
  withArg: "ioe",
  longWithArg: ["--input", "--output", "--error"],
};
const TIMEOUT_OPTIONS: OptionSpec = {
  flags: "v",
  withArg: "sk",
  long: ["--preserve-status", "--foreground", "--verbose"],
  longWithArg: ["--signal", "--kill-after"],
};

/**
 * Skips a wrapper's options; returns the index of its first operand. An
 * option it does not know, or one that is not a literal word, is refused:
 * it might consume the next word and shift the command.
 */
function parseOptions(
  words: readonly Word[],
  spec: OptionSpec,
  label: string,
  fail: (reason: string) => never,
): number {
  let i = 1;
  for (; i < words.length; i++) {
    const w = words[i]!;
    const v = valueOf(w);
    if (!isLiteral(w) && /[$`]/.test(w.raw)) {
      if (v.startsWith("-")) {
        fail(`the ${label} option ${w.raw} is not a literal word`);
      }
      return i;
    }
    if (v === "--") return i + 1;
    if (!v.startsWith("-") || v === "-") return i;
    if (v.startsWith("--")) {
      const [name, eq] = [v.split("=")[0]!, v.includes("=")];
      if (spec.long?.includes(name) && !eq) continue;
      if (spec.longWithArg?.includes(name)) {
        if (!eq) i++;
        continue;
      }
      if (label === "env" && (name === "--split-string")) {
        fail("env --split-string builds the command from a string");
      }
      fail(`unknown ${label} option ${JSON.stringify(v)}`);
    }
    for (let k = 1; k < v.length; k++) {
      const f = v[k]!;
      if (label === "env" && f === "S") {
        fail("env -S builds the command from a string");
      }
      if (spec.optionalArg?.includes(f)) break;
      if (spec.withArg.includes(f)) {
        if (k === v.length - 1) i++;
        break;
      }
      if (!spec.flags.includes(f)) {
        fail(`unknown ${label} option "-${f}" in ${JSON.stringify(v)}`);
      }
    }
  }
  return i;
}

/**
 * Lists the simple commands a bash command line may run (see the module
 * doc for the rules), or says why it cannot.
 *
 * @example Usage
 * ```ts
 * import { parseShellCommand } from "./shell_command.ts";
 * import assert from "node:assert/strict";
 *
 * const r = parseShellCommand("env FOO=1 rm -rf x");
 * assert.ok(r.ok);
 * assert.deepEqual(r.segments.map((s) => s.text), ["env FOO=1 rm -rf x", "rm -rf x"]);
 *
 * const bad = parseShellCommand("$CMD --force");
 * assert.equal(bad.ok, false);
 * ```
 *
 * @param source The command line, as given to `bash -c`.
 * @returns The segments, or the reason and offset of the refusal.
 */
export function parseShellCommand(source: string): ShellParseResult {
  const parser = new Parser(source, 0, [], 0);
  try {
    parser.parseAll([]);
  } catch (err) {
    if (err instanceof Unparseable) {
      return { ok: false, reason: err.message, offset: err.offset };
    }
    throw err;
  }
  return { ok: true, segments: parser.segments };
}

/**
 * The commands {@linkcode parseShellCommand} runs through a wrapper's rules
 * when they name a command (see `unwrap`): keep in step with its `switch`.
 */
const WRAPPER_NAMES = [
  "env",
  "sudo",
  "xargs",
  "nohup",
  "builtin",
  "time",
  "command",
  "exec",
  "nice",
  "stdbuf",
  "timeout",
  "sh",
  "bash",
  "dash",
  "zsh",
  "ksh",
  "find",
];

/** Words with a meaning of their own as a command's first word. */
const SPECIAL_NAMES = new Set([
  ...SKIPPED_KEYWORDS,
  ...Object.keys(REFUSED_KEYWORDS),
  "for",
  "[[",
  "eval",
  ...WRAPPER_NAMES,
]);

/** Bare words (no quoting, expansion, assignment or operator), one blank apart. */
const PLAIN_LINE_REGEXP = /^[A-Za-z0-9_@%+:,./-]+(?: [A-Za-z0-9_@%+:,./-]+)*$/;

/**
 * The segment text of a line that is one plain simple command: bare words
 * of `A-Za-z0-9_@%+:,./-` one blank apart (no quote, expansion, glob,
 * assignment, redirection or operator), whose first word is not a keyword,
 * `eval` or a wrapper (nor a path to one). Such a line is its own one
 * top-level segment, exactly as {@linkcode parseShellCommand} gives it (it
 * adds only the bare-name segment of a path, below the top level); for any
 * other line the answer is `undefined` and the full parser must decide.
 * A shortcut for checking thousands of simple `command` patterns.
 *
 * @example Usage
 * ```ts
 * import { plainCommandText } from "./shell_command.ts";
 * import assert from "node:assert/strict";
 *
 * assert.equal(plainCommandText("git status --short"), "git status --short");
 * assert.equal(plainCommandText("git  status"), undefined); // two blanks
 * assert.equal(plainCommandText("sudo rm x"), undefined); // a wrapper
 * ```
 *
 * @param line A command line.
 * @returns The line itself when it is such a command, else `undefined`.
 */
export function plainCommandText(line: string): string | undefined {
  if (!PLAIN_LINE_REGEXP.test(line)) return undefined;
  const space = line.indexOf(" ");
  const name = space < 0 ? line : line.slice(0, space);
  const base = name.slice(name.lastIndexOf("/") + 1);
  // SPECIAL_NAMES holds the refused keywords too.
  return SPECIAL_NAMES.has(name) || SPECIAL_NAMES.has(base) ? undefined : line;
}
