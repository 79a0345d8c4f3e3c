/**
 * A small syntax highlighter for code blocks: comments, strings, numbers
 * and the keywords of the common languages (TypeScript/JavaScript, Python,
 * Go, Rust, shell, JSON, HCL). `cli-highlight` (highlight.js) would know
 * more languages, but it is a large import on the terminal UI's start path
 * for code that only needs to be readable; this covers what agents print.
 *
 * @module
 */
import type { Line, Span } from "./lines.ts";

const KEYWORDS = new Set(
  (
    "abstract as async await break case catch class const continue def del " +
    "default defer delete do elif else enum except export extends false " +
    "finally fn for from func function go if impl import in interface is " +
    "let loop match mod module mut new nil none not null or package pass " +
    "private pub public raise return self static struct super switch this " +
    "throw true try type typeof undefined use var void while with yield " +
    "True False None and lambda range chan map select fi then done esac echo " +
    "resource variable provider locals output data"
  ).split(" "),
);

const HASH_COMMENT = new Set([
  "python",
  "py",
  "sh",
  "bash",
  "shell",
  "zsh",
  "yaml",
  "yml",
  "toml",
  "hcl",
  "terraform",
  "tf",
  "ruby",
  "rb",
  "",
]);

const TOKEN_REGEXP =
  /(\/\/.*$|#.*$|\/\*.*?\*\/)|("(?:[^"\\]|\\.)*"?|'(?:[^'\\]|\\.)*'?|`(?:[^`\\]|\\.)*`?)|(\b\d[\d_.xXa-fA-F]*\b)|([A-Za-z_][A-Za-z0-9_]*)/g;

/**
 * Highlights one line of code.
 *
 * @param code The line.
 * @param language The fence's language (lower case), or "".
 * @returns Its spans.
 */
export function highlightLine(code: string, language: string): Line {
  const hash = HASH_COMMENT.has(language);
  const spans: Span[] = [];
  let at = 0;
  for (const m of code.matchAll(TOKEN_REGEXP)) {
    const [text, comment, str, num, word] = m;
    let style: Omit<Span, "text"> | undefined;
    if (comment !== undefined) {
      if (comment.startsWith("#") && !hash) continue;
      style = { color: "gray" };
    } else if (str !== undefined) style = { color: "green" };
    else if (num !== undefined) style = { color: "yellow" };
    else if (word !== undefined && KEYWORDS.has(word)) {
      style = { color: "magenta" };
    }
    if (!style) continue;
    if (m.index > at) spans.push({ text: code.slice(at, m.index) });
    spans.push({ ...style, text });
    at = m.index + text.length;
    if (comment !== undefined) break;
  }
  if (at < code.length) spans.push({ text: code.slice(at) });
  return spans.length ? spans : [{ text: "" }];
}

/**
 * Highlights a code block as lines with a gutter.
 *
 * @param code The block.
 * @param language The fence's language, or "".
 * @returns One line per code line, each starting with a dim bar.
 */
export function codeBlockLines(code: string, language = ""): Line[] {
  const lang = language.toLowerCase();
  const lines = code.replace(/\n$/, "").split("\n");
  return [
    ...(lang ? [[{ text: `  ${lang}`, dim: true }]] : []),
    ...lines.map((
      l,
    ) => [{ text: "  │ ", dim: true }, ...highlightLine(l, lang)]),
  ];
}
