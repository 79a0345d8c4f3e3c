/**
 * The preview of a `bash` or `bash_kill` call shown at the plan/apply gate.
 *
 * @module
 */
import type { MessageInitShape } from "@bufbuild/protobuf";
import { parseShellCommand } from "../../contract/shell_command.ts";
import {
  type RenderTreeSchema,
  TextStyle,
} from "../../proto/gen/pluggableharness/render/v1/types_pb.ts";
import { bashArgs, type Call, workingDirectory } from "./_call.ts";
import type { Config } from "./_config.ts";

type Tree = MessageInitShape<typeof RenderTreeSchema>;
type Node = NonNullable<Tree["root"]>;

function text(content: string, bold = false): Node {
  return {
    node: {
      case: "text",
      value: { content, style: bold ? TextStyle.BOLD : TextStyle.NORMAL },
    },
  };
}

/** The preview of a `bash` or `bash_kill` call. */
export async function previewTree(call: Call, cfg: Config): Promise<Tree> {
  const tool = call.toolName ?? "bash";
  if (tool !== "bash") {
    const id = call.arguments?.background_id;
    return {
      root: text(
        `Kill background command ${
          typeof id === "string" ? id : "?"
        } and every process it started`,
        true,
      ),
    };
  }
  const args = bashArgs(call, cfg);
  const cwd = await workingDirectory(call, cfg);
  const parsed = parseShellCommand(args.command);
  const segments: Node = parsed.ok
    ? {
      node: {
        case: "list",
        value: {
          ordered: false,
          items: parsed.segments.map((s) =>
            text(
              s.via.length > 0
                ? `${s.text}   (via ${s.via.join(" › ")})`
                : s.text,
            )
          ),
        },
      },
    }
    : text(
      `The command cannot be split into simple commands with certainty: ${parsed.reason}`,
      true,
    );
  return {
    root: {
      node: {
        case: "group",
        value: {
          children: [
            text(
              args.background
                ? `Run in the background in ${cwd}`
                : `Run in ${cwd} (killed after ${args.timeoutS} s)`,
              true,
            ),
            ...(typeof call.arguments?.description === "string" &&
                call.arguments.description !== ""
              ? [text(call.arguments.description)]
              : []),
            {
              node: {
                case: "codeBlock",
                value: { language: "bash", content: args.command },
              },
            },
            text(parsed.ok ? "Simple commands:" : "Simple commands: unknown"),
            segments,
          ],
        },
      },
    },
  };
}
