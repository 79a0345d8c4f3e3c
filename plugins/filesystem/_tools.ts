/**
 * The filesystem plugin's operations, independent of gRPC: argument
 * checks, `read_file`, the plans behind `write_file` and `edit_file`
 * (computed without touching anything, so that Preview can show them), and
 * the atomic commit that applies a plan.
 *
 * @module
 */
import { basename, dirname } from "node:path";
import {
  closeFile,
  createTempIn,
  lstatOrUndefined,
  makeDirectories,
  openVerified,
  randomSuffix,
  readAll,
  readChunk,
  removeIfSame,
  renameVerified,
  type TempFile,
  type VerifiedFile,
  writeAll,
} from "../sdk/confined_fs.ts";
import {
  confine,
  type ConfinedPath,
  type ResolvedRoot,
  resolveRoots,
} from "../sdk/roots.ts";
import {
  type ArgumentType,
  checkArgumentTypes,
  classify,
  failureEvent,
  type FailureKind,
  ToolFailure,
} from "../sdk/tool_failure.ts";

export {
  type ArgumentType,
  checkArgumentTypes,
  classify,
  failureEvent,
  type FailureKind,
  ToolFailure,
};

/** Lines `read_file` returns when no `limit` is given (and at most). */
export const READ_MAX_LINES = 2000;
/** Bytes of numbered output `read_file` returns at most. */
export const READ_MAX_BYTES: number = 256 * 1024;
/** Characters of one line `read_file` shows before cutting it. */
export const READ_MAX_LINE_CHARS = 2000;

/** What every operation gets: the configured roots and the call. */
export interface CallInput {
  /** Configured roots (absolute, or relative to the working directory). */
  roots: readonly string[];
  /** The tool arguments. */
  args: Readonly<Record<string, unknown>>;
  /** `CallContext.working_directory`. */
  workingDirectory: string;
  /** Aborts when the call is cancelled. */
  signal?: AbortSignal;
}

/** The result payload of `read_file`. */
export interface ReadResult {
  /** The absolute path read. */
  path: string;
  /** Numbered lines (`cat -n` layout), then a truncation marker if cut. */
  content: string;
  /** First line shown (1-based). */
  start_line: number;
  /** Last line shown (0 when none). */
  end_line: number;
  /** Lines in the file. */
  total_lines: number;
  /** True when lines after `end_line` exist but were not shown, or a line was cut. */
  truncated: boolean;
  /** Keeps the result a JSON object (a ToolResult payload). */
  [key: string]: string | number | boolean;
}

/** A computed change to one file, not yet applied. */
export interface FilePlan {
  /** The confined target. */
  target: ConfinedPath;
  /** The roots it was confined to (verified again when it is written). */
  roots: readonly ResolvedRoot[];
  /** The current text, or undefined when the file does not exist. */
  oldText: string | undefined;
  /** True when the current file is not UTF-8 text (overwrite only). */
  oldIsBinary: boolean;
  /** The text after the change. */
  newText: string;
  /** Replacements made (`edit_file`); 1 for `write_file`. */
  replacements: number;
}

const ARGUMENTS: Record<string, Record<string, "string" | "number" | "bool">> =
  {
    read_file: { path: "string", offset: "number", limit: "number" },
    write_file: { path: "string", content: "string" },
    edit_file: {
      path: "string",
      old_str: "string",
      new_str: "string",
      replace_all: "bool",
    },
  };
const REQUIRED: Record<string, string[]> = {
  read_file: ["path"],
  write_file: ["path", "content"],
  edit_file: ["path", "old_str", "new_str"],
};

/**
 * Checks a call's arguments against the tool's input schema: required
 * keys present, no unknown keys, types right.
 *
 * @param tool The tool name.
 * @param args The arguments.
 * @throws {ToolFailure} `invalid_arguments`, naming every problem.
 */
export function checkArguments(
  tool: string,
  args: Readonly<Record<string, unknown>>,
): void {
  const spec = ARGUMENTS[tool];
  if (!spec) {
    throw new ToolFailure(
      "invalid_arguments",
      `Unknown tool "${tool}": this provider has read_file, write_file and edit_file`,
    );
  }
  checkArgumentTypes(tool, args, spec, REQUIRED[tool]!);
}

function positiveInteger(
  args: Readonly<Record<string, unknown>>,
  key: string,
): number | undefined {
  const v = args[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== "number" || !Number.isInteger(v) || v < 1) {
    throw new ToolFailure(
      "invalid_arguments",
      `"${key}" must be a positive integer, got ${JSON.stringify(v)}`,
    );
  }
  return v;
}

/**
 * Confines the call's `path` argument to the roots.
 *
 * @param input The roots and the call.
 * @returns The confined path.
 * @throws {PathError} If it escapes the roots or cannot be resolved.
 */
export async function target(input: CallInput): Promise<ConfinedPath> {
  return (await confined(input)).path;
}

/**
 * Confines the call's `path` argument and keeps the resolved roots, which
 * the use of the path verifies against again.
 *
 * @param input The roots and the call.
 * @returns The confined path and the roots.
 * @throws {PathError} If it escapes the roots or cannot be resolved.
 */
export async function confined(
  input: CallInput,
): Promise<{ path: ConfinedPath; roots: readonly ResolvedRoot[] }> {
  const roots = await resolveRoots(input.roots, input.workingDirectory);
  const path = await confine(
    String(input.args.path),
    input.workingDirectory,
    roots,
  );
  return { path, roots };
}

function cancelled(what: string): ToolFailure {
  return new ToolFailure("cancelled", `Cancelled: ${what}`);
}

/** True when the first 8 KiB hold a NUL byte (how git and grep tell binary files). */
export function looksBinary(bytes: Uint8Array): boolean {
  return bytes.subarray(0, 8192).includes(0);
}

// Any code unit above 0x7f (a regex class from \0 would trip no-control-regex).
const NON_ASCII = /[\u0080-\uffff]/;

/** Bytes of a string in UTF-8, without encoding it. */
function utf8Length(s: string): number {
  if (!NON_ASCII.test(s)) return s.length;
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) continue;
    if (c < 0x800) n += 1;
    else if (c >= 0xd800 && c <= 0xdbff) {
      n += 2; // a surrogate pair: 4 bytes for 2 code units
      i++;
    } else n += 2;
  }
  return n;
}

function cutLine(line: string): { text: string; cut: boolean } {
  if (line.length <= READ_MAX_LINE_CHARS) return { text: line, cut: false };
  let end = READ_MAX_LINE_CHARS;
  const code = line.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end--; // keep surrogate pairs whole
  return {
    text: `${line.slice(0, end)} … [line truncated: ${line.length} characters]`,
    cut: true,
  };
}

/**
 * `read_file`: numbered lines of a text file, from `offset` (1-based) for
 * at most `limit` lines, bounded by {@linkcode READ_MAX_LINES} and
 * {@linkcode READ_MAX_BYTES}. The file is streamed, so a huge file costs
 * one pass and no memory beyond the shown lines.
 *
 * @param input The roots and the call.
 * @returns The result payload.
 * @throws {ToolFailure} Classified.
 */
export async function readFile(input: CallInput): Promise<ReadResult> {
  checkArguments("read_file", input.args);
  const offset = positiveInteger(input.args, "offset") ?? 1;
  const limit = Math.min(
    positiveInteger(input.args, "limit") ?? READ_MAX_LINES,
    READ_MAX_LINES,
  );
  let path: ConfinedPath;
  let roots: readonly ResolvedRoot[];
  try {
    ({ path, roots } = await confined(input));
  } catch (err) {
    throw classify(err, `Cannot read "${input.args.path}"`);
  }
  const action = `Cannot read "${path.absolute}"`;
  if (!path.exists) {
    throw new ToolFailure("not_found", `${action}: it does not exist`);
  }
  let file: VerifiedFile;
  try {
    // Opened, then verified: what is read is the file inside the roots.
    file = openVerified(path.real, roots, path.absolute);
  } catch (err) {
    throw classify(err, action);
  }
  const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
  const shown: string[] = [];
  let bytes = 0;
  let lineNo = 0;
  let endLine = 0;
  let full = false; // stopped collecting: limit or byte cap reached
  let truncated = false;
  let partial = "";
  const take = (line: string) => {
    lineNo++;
    if (lineNo < offset) return;
    if (full || shown.length >= limit) {
      full = true;
      truncated = true;
      return;
    }
    const { text, cut } = cutLine(line);
    const numbered = `${String(lineNo).padStart(6, " ")}\t${text}`;
    const size = utf8Length(numbered) + 1;
    if (bytes + size > READ_MAX_BYTES) {
      full = true;
      truncated = true;
      return;
    }
    if (cut) truncated = true;
    bytes += size;
    shown.push(numbered);
    endLine = lineNo;
  };
  try {
    const buf = new Uint8Array(64 * 1024);
    let first = true;
    for (;;) {
      if (input.signal?.aborted) throw cancelled(`reading "${path.absolute}"`);
      const n = await readChunk(file, buf);
      if (n === 0) break;
      const chunk = buf.subarray(0, n);
      if (first && looksBinary(chunk)) {
        throw new ToolFailure(
          "invalid_arguments",
          `${action}: it is a binary file, not text`,
        );
      }
      first = false;
      let text: string;
      try {
        text = decoder.decode(chunk, { stream: true });
      } catch {
        throw new ToolFailure(
          "invalid_arguments",
          `${action}: it is not UTF-8 text`,
        );
      }
      let start = 0;
      for (;;) {
        const nl = text.indexOf("\n", start);
        if (nl === -1) break;
        take(partial + text.slice(start, nl));
        partial = "";
        start = nl + 1;
      }
      partial += text.slice(start);
    }
    try {
      partial += decoder.decode();
    } catch {
      throw new ToolFailure(
        "invalid_arguments",
        `${action}: it is not UTF-8 text`,
      );
    }
    if (partial !== "") take(partial);
  } catch (err) {
    throw classify(err, action);
  } finally {
    closeFile(file);
  }
  if (offset > 1 && offset > lineNo) {
    throw new ToolFailure(
      "invalid_arguments",
      `"offset" ${offset} is past the end of "${path.absolute}" (${lineNo} line${
        lineNo === 1 ? "" : "s"
      })`,
    );
  }
  let content = shown.join("\n");
  if (truncated && endLine < lineNo) {
    content += `\n[truncated: lines ${
      endLine + 1
    }-${lineNo} of ${lineNo} not shown; read on with offset=${endLine + 1}]`;
  }
  return {
    path: path.absolute,
    content,
    start_line: offset,
    end_line: endLine,
    total_lines: lineNo,
    truncated,
  };
}

/**
 * Reads a confined file through a verified handle
 * ({@linkcode openVerified}).
 *
 * @param path The confined path.
 * @param roots The roots it was confined to.
 * @param action The message prefix.
 * @returns The bytes, or undefined when the file does not exist.
 * @throws {ToolFailure} Classified.
 */
export async function readVerified(
  path: ConfinedPath,
  roots: readonly ResolvedRoot[],
  action: string,
): Promise<Uint8Array | undefined> {
  if (!path.exists) return undefined;
  let file: VerifiedFile | undefined;
  try {
    file = openVerified(path.real, roots, path.absolute);
    return (await readAll(file))!;
  } catch (err) {
    throw classify(err, action);
  } finally {
    if (file) closeFile(file);
  }
}

async function readText(
  path: ConfinedPath,
  roots: readonly ResolvedRoot[],
  action: string,
): Promise<{ text: string | undefined; binary: boolean }> {
  const bytes = await readVerified(path, roots, action);
  if (bytes === undefined) return { text: undefined, binary: false };
  if (looksBinary(bytes)) return { text: undefined, binary: true };
  try {
    return {
      text: new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(
        bytes,
      ),
      binary: false,
    };
  } catch {
    return { text: undefined, binary: true };
  }
}

/**
 * Plans `write_file` (creates or overwrites `path` with `content`) without
 * touching anything.
 *
 * @param input The roots and the call.
 * @returns The plan.
 * @throws {ToolFailure} Classified.
 */
export async function planWrite(input: CallInput): Promise<FilePlan> {
  checkArguments("write_file", input.args);
  let path: ConfinedPath;
  let roots: readonly ResolvedRoot[];
  try {
    ({ path, roots } = await confined(input));
  } catch (err) {
    throw classify(err, `Cannot write "${input.args.path}"`);
  }
  const old = await readText(path, roots, `Cannot write "${path.absolute}"`);
  return {
    target: path,
    roots,
    oldText: old.text,
    oldIsBinary: old.binary,
    newText: String(input.args.content),
    replacements: 1,
  };
}

function occurrences(haystack: string, needle: string): number[] {
  const at: number[] = [];
  let i = haystack.indexOf(needle);
  while (i !== -1) {
    at.push(i);
    i = haystack.indexOf(needle, i + needle.length);
  }
  return at;
}

/**
 * Replaces `oldStr` by `newStr` in `text`, exactly (no patterns): it must
 * occur exactly once unless `replaceAll` is set.
 *
 * @param text The current text.
 * @param oldStr The text to replace (non-empty).
 * @param newStr The replacement.
 * @param replaceAll Replace every occurrence.
 * @param action The message prefix naming the file (e.g. `Cannot edit "p"`).
 * @returns The new text and the number of replacements.
 * @throws {ToolFailure} `invalid_arguments` saying how many times `oldStr`
 * occurs when it is not exactly once (or not at all).
 */
export function replaceExact(
  text: string,
  oldStr: string,
  newStr: string,
  replaceAll: boolean,
  action: string,
): { text: string; replacements: number } {
  const at = occurrences(text, oldStr);
  if (at.length === 0) {
    throw new ToolFailure(
      "invalid_arguments",
      `${action}: "old_str" does not occur in the file (it must match exactly, whitespace and line endings included)`,
    );
  }
  if (at.length > 1 && !replaceAll) {
    throw new ToolFailure(
      "invalid_arguments",
      `${action}: "old_str" occurs ${at.length} times; include more surrounding text to make it unique, or set "replace_all" to replace every occurrence`,
      { occurrences: String(at.length) },
    );
  }
  const parts: string[] = [];
  let from = 0;
  for (const i of at) {
    parts.push(text.slice(from, i), newStr);
    from = i + oldStr.length;
  }
  parts.push(text.slice(from));
  return { text: parts.join(""), replacements: at.length };
}

/**
 * Plans `edit_file`: the exact replacement of `old_str` by `new_str`,
 * which must occur exactly once unless `replace_all` is set. Touches
 * nothing.
 *
 * @param input The roots and the call.
 * @returns The plan.
 * @throws {ToolFailure} Classified; `invalid_arguments` says how many times
 * `old_str` occurs when it is not exactly once.
 */
export async function planEdit(input: CallInput): Promise<FilePlan> {
  checkArguments("edit_file", input.args);
  const oldStr = String(input.args.old_str);
  const newStr = String(input.args.new_str);
  const replaceAll = input.args.replace_all === true;
  if (oldStr === "") {
    throw new ToolFailure(
      "invalid_arguments",
      `"old_str" must not be empty (to create a file, use write_file)`,
    );
  }
  if (oldStr === newStr) {
    throw new ToolFailure(
      "invalid_arguments",
      `"old_str" and "new_str" are the same: the edit would change nothing`,
    );
  }
  let path: ConfinedPath;
  let roots: readonly ResolvedRoot[];
  try {
    ({ path, roots } = await confined(input));
  } catch (err) {
    throw classify(err, `Cannot edit "${input.args.path}"`);
  }
  const action = `Cannot edit "${path.absolute}"`;
  if (!path.exists) {
    throw new ToolFailure(
      "not_found",
      `${action}: it does not exist (to create it, use write_file)`,
    );
  }
  const old = await readText(path, roots, action);
  if (old.text === undefined) {
    throw new ToolFailure(
      "invalid_arguments",
      `${action}: it is not a UTF-8 text file`,
    );
  }
  const { text, replacements } = replaceExact(
    old.text,
    oldStr,
    newStr,
    replaceAll,
    action,
  );
  return {
    target: path,
    roots,
    oldText: old.text,
    oldIsBinary: false,
    newText: text,
    replacements,
  };
}

export { randomSuffix };

/**
 * Applies a plan atomically: writes a temporary file beside the target
 * (same directory, so the same filesystem), created in a directory
 * verified to be inside the roots and verified itself before anything is
 * written through it, syncs it, gives it the old file's mode, then renames
 * it over the target and verifies that the target is the file written
 * (see `plugins/sdk/confined_fs.ts`). Missing parent directories are
 * created one verified level at a time. A cancellation before the rename
 * leaves nothing behind.
 *
 * @param plan The plan.
 * @param signal Aborts when the call is cancelled.
 * @returns Bytes written and whether the file was created.
 * @throws {ToolFailure} Classified (`cancelled` says nothing was written).
 */
export function commit(
  plan: FilePlan,
  signal?: AbortSignal,
): Promise<{ bytes: number; created: boolean }> {
  const real = plan.target.real;
  const shown = plan.target.absolute;
  const action = `Cannot write "${shown}"`;
  const data = new TextEncoder().encode(plan.newText);
  let mode: number | undefined;
  let created = true;
  let tmp: TempFile | undefined;
  let renamed = false;
  try {
    makeDirectories(dirname(real), plan.roots, shown);
    const info = lstatOrUndefined(real);
    if (info?.isDirectory) {
      throw new ToolFailure(
        "invalid_arguments",
        `${action}: it is a directory`,
      );
    }
    if (info?.isSymlink) {
      throw new ToolFailure(
        "permission_denied",
        `Refusing "${shown}": it became a symbolic link after it was resolved`,
      );
    }
    if (info) {
      created = false;
      mode = info.mode === null ? undefined : info.mode & 0o7777;
    }
    tmp = createTempIn(
      dirname(real),
      basename(real),
      mode ?? 0o666,
      plan.roots,
      shown,
    );
    writeAll(tmp, data, mode);
    closeFile(tmp);
    if (signal?.aborted) {
      throw cancelled(`nothing was written to "${shown}"`);
    }
    renameVerified(tmp, basename(real), plan.roots, shown);
    renamed = true;
  } catch (err) {
    return Promise.reject(classify(err, action));
  } finally {
    if (tmp) {
      closeFile(tmp);
      if (!renamed) removeIfSame(tmp.path, tmp);
    }
  }
  return Promise.resolve({ bytes: data.length, created });
}

/** Lines in a text (a final line without a newline counts). */
export function countLines(text: string): number {
  if (text === "") return 0;
  let n = 0;
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) {
    n++;
  }
  return text.endsWith("\n") ? n : n + 1;
}
