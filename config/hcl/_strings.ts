/**
 * Resolves the escapes in one literal token of a template, as hashicorp/hcl
 * does: backslash escapes in quoted strings only, `$${` → `${` and
 * `%%{` → `%{` in both quoted strings and heredocs.
 *
 * @module
 */

/** A problem with an escape, at UTF-16 offsets relative to the token. */
export interface EscapeProblem {
  /** Short title. */
  summary: string;
  /** Full sentences. */
  detail: string;
  /** Start offset within the token (inclusive). */
  start: number;
  /** End offset within the token (exclusive). */
  end: number;
}

function isHex(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102);
}

/**
 * Splits a token's text into escape sequences and literal runs, following
 * hashicorp/hcl's string-literal scanner.
 */
function slices(s: string, quoted: boolean): [number, number][] {
  const out: [number, number][] = [];
  let litStart = 0;
  let i = 0;
  const n = s.length;
  const flush = (to: number) => {
    if (to > litStart) out.push([litStart, to]);
  };
  while (i < n) {
    const c = s.charCodeAt(i);
    let len = 0;
    if (quoted && c === 92 /* \ */) {
      const d = s.charCodeAt(i + 1);
      if (d === 117 /* u */ || d === 85 /* U */) {
        const max = d === 117 ? 4 : 8;
        len = 2;
        while (len - 2 < max && i + len < n && isHex(s.charCodeAt(i + len))) {
          len++;
        }
      } else if (i + 1 < n) {
        const dd = s.charCodeAt(i + 1);
        len = dd >= 0xd800 && dd <= 0xdbff && i + 2 < n ? 3 : 2;
      } else {
        len = 1;
      }
    } else if (c === 36 || c === 37) {
      len = 1;
      if (s.charCodeAt(i + 1) === c) {
        len = 2;
        if (s.charCodeAt(i + 2) === 123) len = 3;
      }
    } else if (c === 13) {
      len = s.charCodeAt(i + 1) === 10 ? 2 : 1;
    } else if (c === 10) {
      len = 1;
    }
    if (len > 0) {
      flush(i);
      out.push([i, i + len]);
      i += len;
      litStart = i;
    } else {
      i++;
    }
  }
  flush(n);
  return out;
}

/**
 * Resolves escapes in a literal token.
 *
 * @param s The token's text.
 * @param quoted True for a quoted-string token (backslash escapes apply).
 * @returns The resolved text and any invalid escapes.
 */
export function unescapeLiteral(
  s: string,
  quoted: boolean,
): { value: string; problems: EscapeProblem[] } {
  // Fast path: nothing to resolve.
  if (
    s.indexOf("$$") < 0 && s.indexOf("%%") < 0 &&
    (!quoted || s.indexOf("\\") < 0)
  ) {
    return { value: s, problems: [] };
  }
  let out = "";
  const problems: EscapeProblem[] = [];
  for (const [a, b] of slices(s, quoted)) {
    const c = s.charCodeAt(a);
    if (c === 92 && quoted) {
      if (b - a < 2) {
        problems.push({
          summary: "Invalid escape sequence",
          detail:
            "Backslash must be followed by an escape sequence selector character.",
          start: a,
          end: b,
        });
        out += s.slice(a, b);
        continue;
      }
      const sel = s[a + 1]!;
      switch (sel) {
        case "n":
          out += "\n";
          continue;
        case "r":
          out += "\r";
          continue;
        case "t":
          out += "\t";
          continue;
        case '"':
          out += '"';
          continue;
        case "\\":
          out += "\\";
          continue;
        case "u":
        case "U": {
          const want = sel === "u" ? 6 : 10;
          if (b - a !== want) {
            problems.push({
              summary: "Invalid escape sequence",
              detail: sel === "u"
                ? "The \\u escape sequence must be followed by four hexadecimal digits."
                : "The \\U escape sequence must be followed by eight hexadecimal digits.",
              start: a,
              end: b,
            });
            out += s.slice(a, b);
            continue;
          }
          const cp = parseInt(s.slice(a + 2, b), 16);
          if (cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) {
            problems.push({
              summary: "Invalid escape sequence",
              detail: `Cannot encode character U+${
                cp.toString(16).padStart(4, "0")
              } in UTF-8.`,
              start: a,
              end: b,
            });
            out += s.slice(a, b);
            continue;
          }
          out += String.fromCodePoint(cp);
          continue;
        }
        default:
          problems.push({
            summary: "Invalid escape sequence",
            detail: `The symbol ${
              JSON.stringify(s.slice(a + 1, b))
            } is not a valid escape sequence selector.`,
            start: a,
            end: b,
          });
          out += s.slice(a + 1, b);
          continue;
      }
    }
    if ((c === 36 || c === 37) && b - a === 3) {
      // "$${" → "${", "%%{" → "%{"
      out += s[a]! + "{";
      continue;
    }
    out += s.slice(a, b);
  }
  return { value: out, problems };
}
