/**
 * The schema of the memory tools `remember`, `forget` and `search`.
 *
 * @module
 */
import type { MessageInitShape } from "@bufbuild/protobuf";
import { HookPoint } from "../../proto/gen/pluggableharness/common/v1/types_pb.ts";
import {
  type SchemaSchema,
  SchemaType,
} from "../../proto/gen/pluggableharness/schema/v1/types_pb.ts";
import type { GetSchemaResponseSchema } from "../../proto/gen/pluggableharness/tool/v1/rpc_response_pb.ts";
import {
  RiskClass,
  ToolKind,
} from "../../proto/gen/pluggableharness/tool/v1/types_pb.ts";
import { configSchemaOf, type PluginManifest } from "../sdk/mod.ts";
import { SCOPE_NAMES, TYPE_NAMES } from "./_store.ts";
import { objectSchema as object } from "../sdk/tool_kit.ts";

type Schema = MessageInitShape<typeof SchemaSchema>;

const str = (description: string, enumValues: string[] = []): Schema => ({
  type: SchemaType.STRING,
  description,
  enumValues,
});
const num = (description: string): Schema => ({
  type: SchemaType.NUMBER,
  description,
});
const bool = (description: string): Schema => ({
  type: SchemaType.BOOLEAN,
  description,
});
const TYPE_DOC =
  "user (who the user is, their preferences), feedback (corrections and " +
  "guidance on how to work), project (facts about the current work; " +
  "decays fastest) or reference (pointers to where information lives)";
const SCOPE_DOC =
  "session (this session only), project (this project) or global";
const TIMEOUT = { seconds: 15n };

/** The GetSchema response of the memory tools. */
export function toolSchema(
  manifest: PluginManifest,
): MessageInitShape<typeof GetSchemaResponseSchema> {
  return {
    tools: [
      {
        name: "remember",
        kind: ToolKind.RESOURCE,
        risk: RiskClass.LOW,
        description:
          "Saves a memory that later sessions recall: a short title and the " +
          "content (self-contained; link other memories with [[their-id]]). " +
          "If a similar memory exists, nothing is saved and the result lists " +
          "it: then call again with update_id to replace it, or with force " +
          "true if yours is really different.",
        inputSchema: object({
          title: str("A short title; the id is made from it."),
          content: str("The memory itself, self-contained."),
          type: str(`What kind of memory: ${TYPE_DOC}.`, [...TYPE_NAMES]),
          scope: str(`Who recalls it: ${SCOPE_DOC}. Default project.`, [
            ...SCOPE_NAMES,
          ]),
          id: str("A suggested id (slug); default: made from the title."),
          update_id: str(
            "Replace the title and content of this existing memory instead of creating one.",
          ),
          force: bool("Create even if a similar memory exists."),
        }, ["title", "content", "type"]),
        outputSchema: object({
          status: str("What happened.", [
            "created",
            "updated",
            "near_duplicate",
          ]),
          message: str("What happened, in words, and what to do next."),
          id: str("The memory's id (created or updated)."),
          record_status: str("canonical, or pending review.", [
            "canonical",
            "pending",
          ]),
          scope: str("The memory's scope (created or updated).", [
            ...SCOPE_NAMES,
          ]),
          candidates: {
            type: SchemaType.ARRAY,
            description: "Similar existing memories (near_duplicate only).",
            items: object({
              id: str("Its id."),
              title: str("Its title."),
              content: str("Its content."),
              similarity: num("How alike, 0 to 1."),
            }, ["id", "title", "content", "similarity"]),
          },
        }, ["status", "message"]),
        streaming: false,
        concurrency: { safe: false, keyFields: [] },
        defaultTimeout: TIMEOUT,
        idempotent: false,
      },
      {
        name: "forget",
        kind: ToolKind.RESOURCE,
        risk: RiskClass.MODERATE,
        description:
          "Deletes a memory by id (find ids with search). Use it for memories " +
          "that are wrong or no longer true.",
        inputSchema: object({ id: str("The memory's id.") }, ["id"]),
        outputSchema: object({
          id: str("The id deleted."),
          title: str("Its title."),
          scope: str("Its scope.", [...SCOPE_NAMES]),
          deleted: bool("True: it existed and is gone."),
        }, ["id", "title", "scope", "deleted"]),
        streaming: false,
        concurrency: { safe: true, keyFields: ["id"] },
        defaultTimeout: TIMEOUT,
        idempotent: false,
      },
      {
        name: "search",
        kind: ToolKind.DATA_SOURCE,
        risk: RiskClass.READ_ONLY,
        description:
          "Searches saved memories by words of their title and content, best " +
          "match first. Returns each memory's id, type, scope, status and content.",
        inputSchema: object({
          query: str("Words to look for."),
          type: str(`Only this kind: ${TYPE_DOC}.`, [...TYPE_NAMES]),
          scope: str(`Only this scope: ${SCOPE_DOC}.`, [...SCOPE_NAMES]),
          limit: num("Most results (1-20, default 5)."),
        }, ["query"]),
        outputSchema: object({
          results: {
            type: SchemaType.ARRAY,
            description: "Matches, best first.",
            items: object({
              id: str("The id."),
              title: str("The title."),
              type: str("The type."),
              scope: str("The scope."),
              status: str("canonical or pending."),
              score: num("Relevance, 0 to 1."),
              content: str("The content."),
              links: {
                type: SchemaType.ARRAY,
                description: "[[links]] in it.",
                items: str("A linked id."),
              },
            }, [
              "id",
              "title",
              "type",
              "scope",
              "status",
              "score",
              "content",
              "links",
            ]),
          },
          count: num("Number of results."),
        }, ["results", "count"]),
        streaming: false,
        concurrency: { safe: true, keyFields: [] },
        defaultTimeout: TIMEOUT,
        idempotent: true,
      },
    ],
    slashCommands: [],
    configSchema: configSchemaOf(manifest),
    supportedHookPoints: [HookPoint.POST_MODEL_RESPONSE, HookPoint.SESSION_END],
  };
}
