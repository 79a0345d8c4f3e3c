/**
 * Where delivered control blocks go in a session's history
 * ({@linkcode appendControlBlocks}): onto the last message when it is a
 * user message (a prompt, or the tool results of the round before), else
 * into a new user message. A resumed session rebuilds the same history
 * from its `control` events.
 *
 * @module
 */
import { create } from "@bufbuild/protobuf";
import { ulid } from "../state/ulid.ts";
import {
  ContentBlockSchema,
  type Message,
  MessageSchema,
  Role,
} from "../../proto/gen/pluggableharness/content/v1/types_pb.ts";

/**
 * Appends rendered control blocks to a history, in place.
 *
 * @param history The history.
 * @param blocks The rendered blocks, in order.
 * @returns The message that now carries them, or `undefined` when there
 * were none.
 */
export function appendControlBlocks(
  history: Message[],
  blocks: readonly string[],
): Message | undefined {
  if (blocks.length === 0) return undefined;
  const content = blocks.map((text) =>
    create(ContentBlockSchema, { block: { case: "text", value: { text } } })
  );
  const last = history.at(-1);
  if (last?.role === Role.USER) {
    const next = create(MessageSchema, {
      ...last,
      content: [...last.content, ...content],
    });
    history[history.length - 1] = next;
    return next;
  }
  const message = create(MessageSchema, {
    role: Role.USER,
    id: ulid(),
    content,
  });
  history.push(message);
  return message;
}
