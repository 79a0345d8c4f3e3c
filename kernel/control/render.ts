/**
 * Rendering of control-plane messages into the model's input:
 * {@linkcode renderControl} writes a {@linkcode ControlMessage} as
 * `<cp:NAME attr="…">body</cp:NAME>` with its attributes in the seed's
 * order, escaping `&`, `<`, `>` and `"` so neither an attribute nor a body
 * can close the block or forge another one.
 *
 * @module
 */
import {
  type ChannelAttributes,
  type ChannelName,
  CHANNELS,
} from "./channels.ts";

/** A typed message of one channel. */
export interface ControlMessage<C extends ChannelName = ChannelName> {
  /** The channel. */
  readonly channel: C;
  /** Its attributes. */
  readonly attrs: ChannelAttributes[C];
  /** Its body (plain text; escaped when rendered). @default {""} */
  readonly body?: string;
  /**
   * Who produced it: the rate-limit key of a per-source channel (a policy
   * source, a hook's name, a plugin). @default {"kernel"}
   */
  readonly source?: string;
}

/** Any channel's message. */
export type AnyControlMessage = {
  [C in ChannelName]: ControlMessage<C>;
}[ChannelName];

const ESCAPES: Readonly<Record<string, string>> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
};
const ESCAPE_REGEXP = /[&<>"]/g;
const ESCAPE_TEST = /[&<>"]/;
const UNESCAPE_REGEXP = /&(amp|lt|gt|quot|apos|#\d+|#x[0-9a-fA-F]+);/g;

/**
 * Escapes text for an attribute value or a body.
 *
 * @param text Plain text.
 * @returns The text with `&`, `<`, `>` and `"` escaped.
 */
export function escapeControlText(text: string): string {
  if (!ESCAPE_TEST.test(text)) return text;
  return text.replace(ESCAPE_REGEXP, (c) => ESCAPES[c]!);
}

/**
 * Reverses {@linkcode escapeControlText} (and numeric references).
 *
 * @param text Escaped text.
 * @returns Plain text.
 */
export function unescapeControlText(text: string): string {
  return text.replace(UNESCAPE_REGEXP, (whole, e: string) => {
    switch (e) {
      case "amp":
        return "&";
      case "lt":
        return "<";
      case "gt":
        return ">";
      case "quot":
        return '"';
      case "apos":
        return "'";
    }
    const code = e.startsWith("#x")
      ? parseInt(e.slice(2), 16)
      : parseInt(e.slice(1), 10);
    return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
  });
}

/**
 * The attributes of a message as name/value pairs in the channel's
 * declared order, absent optional ones left out.
 *
 * @param message The message.
 * @returns The pairs.
 * @throws {TypeError} When a required attribute is missing, a value is
 * not a string or a finite number, or an enumerated value is not allowed.
 */
export function controlAttributes(
  message: ControlMessage,
): [name: string, value: string][] {
  const info = CHANNELS.get(message.channel);
  if (!info) {
    throw new TypeError(`Unknown control channel "${message.channel}"`);
  }
  const attrs = message.attrs as Readonly<Record<string, unknown>>;
  const out: [string, string][] = [];
  for (const name of info.attributes) {
    const v = attrs[name];
    if (v === undefined) {
      if (info.optional.includes(name)) continue;
      throw new TypeError(
        `The ${message.channel} control message needs the attribute "${name}"`,
      );
    }
    let text: string;
    if (typeof v === "string") text = v;
    else if (typeof v === "number" && Number.isFinite(v)) text = String(v);
    else {
      throw new TypeError(
        `The attribute "${name}" of a ${message.channel} control message must be a string or a finite number, not ${
          JSON.stringify(v) ?? String(v)
        }`,
      );
    }
    const allowed = info.values[name];
    if (allowed && !allowed.includes(text)) {
      throw new TypeError(
        `The attribute "${name}" of a ${message.channel} control message must be one of ${
          allowed.join(", ")
        }, not "${text}"`,
      );
    }
    out.push([name, text]);
  }
  for (const name of Object.keys(attrs)) {
    if (!info.attributes.includes(name) && attrs[name] !== undefined) {
      throw new TypeError(
        `The ${message.channel} control channel has no attribute "${name}" (it has ${
          info.attributes.join(", ") || "none"
        })`,
      );
    }
  }
  return out;
}

/**
 * Renders a message as the model reads it.
 *
 * @example Usage
 * ```ts
 * import { renderControl } from "@ph/agent/kernel";
 * import assert from "node:assert/strict";
 *
 * assert.equal(
 *   renderControl({
 *     channel: "permission-denied",
 *     attrs: { tool: "write_file", "reason-code": "policy", path: "a&b.txt" },
 *     body: "Denied by rule no_writes.",
 *   }),
 *   '<cp:permission-denied tool="write_file" reason-code="policy" path="a&amp;b.txt">Denied by rule no_writes.</cp:permission-denied>',
 * );
 * ```
 *
 * @param message The message.
 * @returns `<cp:NAME attr="…">body</cp:NAME>`.
 * @throws {TypeError} When its attributes do not fit its channel.
 */
export function renderControl(message: ControlMessage): string {
  return renderBlock(
    message.channel,
    controlAttributes(message),
    message.body,
  );
}

/**
 * Renders a block from attributes already checked against its channel
 * (what {@linkcode controlAttributes} returns).
 *
 * @param channel The channel.
 * @param attributes Name/value pairs in the channel's order.
 * @param body The body (plain text). @default {""}
 * @returns `<cp:NAME attr="…">body</cp:NAME>`.
 */
export function renderBlock(
  channel: ChannelName,
  attributes: readonly (readonly [string, string])[],
  body = "",
): string {
  let attrs = "";
  for (const [n, v] of attributes) attrs += ` ${n}="${escapeControlText(v)}"`;
  return `<cp:${channel}${attrs}>${escapeControlText(body)}</cp:${channel}>`;
}

/**
 * The message a plugin posts to a channel other than its `plugin-inject`
 * (`InjectControl` with a channel): the attributes must be ones the
 * channel declares; the plugin is the message's source.
 *
 * @example Usage
 * ```ts
 * import { pluginControlMessage } from "@ph/agent/kernel";
 * import assert from "node:assert/strict";
 * const m = pluginControlMessage("lsp", "a.ts:1:7: error", {
 *   channel: "lsp-diagnostics",
 *   attributes: { path: "a.ts", count: "1" },
 * });
 * assert.equal(m.source, "lsp");
 * ```
 *
 * @param plugin The posting plugin's name.
 * @param body The block's body.
 * @param to The channel and its attributes.
 * @returns The message, for `ControlPlane.post`.
 * @throws {TypeError} When the channel is not a system→agent channel or an
 * attribute is not one it declares.
 */
export function pluginControlMessage(
  plugin: string,
  body: string,
  to: {
    readonly channel: string;
    readonly attributes: Readonly<Record<string, string>>;
  },
): AnyControlMessage {
  const info = CHANNELS.get(to.channel as ChannelName);
  if (!info || info.direction !== "system_to_agent") {
    throw new TypeError(
      `"${to.channel}" is not a system→agent control channel`,
    );
  }
  for (const name of Object.keys(to.attributes)) {
    if (!info.attributes.includes(name)) {
      throw new TypeError(
        `The ${info.name} control message has no attribute "${name}" (it takes ${
          info.attributes.map((a) => `"${a}"`).join(", ") || "none"
        })`,
      );
    }
  }
  return {
    channel: info.name,
    attrs: { ...to.attributes },
    body,
    source: plugin,
  } as AnyControlMessage;
}
