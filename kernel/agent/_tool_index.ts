/**
 * The tools a session may call, as the model sees them: {@linkcode ToolIndex}
 * scopes the providers' schemas, names each tool for the model (qualified
 * `provider__tool` when two providers share a name), leaves resource tools
 * out in plan mode, and finds the entry a `tool_use` block names.
 *
 * @module
 */
import { create } from "@bufbuild/protobuf";
import {
  type ToolDeclaration,
  ToolDeclarationSchema,
} from "../../proto/gen/pluggableharness/model/v1/types_pb.ts";
import {
  ToolKind,
  type ToolSchema,
} from "../../proto/gen/pluggableharness/tool/v1/types_pb.ts";
import type { Category } from "../../proto/gen/pluggableharness/common/v1/types_pb.ts";
import type { ToolEndpoint } from "./endpoints.ts";

/** One tool of the session: its provider, schema, endpoint and model name. */
export interface ToolEntry {
  /** The provider's local name. */
  readonly provider: string;
  /** The tool's schema. */
  readonly schema: ToolSchema;
  /** Where calls go. */
  readonly endpoint: ToolEndpoint;
  /** The name the model calls it by. */
  readonly modelName: string;
  /**
   * The plan item's `producer_category` when not a tool's (a slash
   * command run through the same gate).
   */
  readonly producerCategory?: Category;
}

/** The session's tools by model name. */
export class ToolIndex {
  /** Every tool in scope, in provider order. */
  readonly entries: ToolEntry[] = [];
  readonly #byName = new Map<string, ToolEntry>();
  readonly #planMode: boolean;

  /**
   * Indexes the scoped tools.
   *
   * @param tools Scoped schemas by provider.
   * @param endpoints Tool endpoints by provider.
   * @param planMode Leave resource tools out.
   * @param producerCategory Every entry's producer category, when not a
   * tool's.
   * @throws {TypeError} When a provider has no endpoint.
   */
  constructor(
    tools: ReadonlyMap<string, readonly ToolSchema[]>,
    endpoints: ReadonlyMap<string, ToolEndpoint>,
    planMode: boolean,
    producerCategory?: Category,
  ) {
    this.#planMode = planMode;
    const counts = new Map<string, number>();
    for (const schemas of tools.values()) {
      for (const s of schemas) {
        counts.set(s.name, (counts.get(s.name) ?? 0) + 1);
      }
    }
    for (const [provider, schemas] of tools) {
      const endpoint = endpoints.get(provider);
      if (!endpoint) {
        throw new TypeError(
          `Cannot scope the tools of "${provider}": no tool endpoint is loaded for it`,
        );
      }
      for (const schema of schemas) {
        if (planMode && schema.kind === ToolKind.RESOURCE) continue;
        const modelName = (counts.get(schema.name) ?? 0) > 1
          ? `${provider}__${schema.name}`
          : schema.name;
        const entry = {
          provider,
          schema,
          endpoint,
          modelName,
          ...(producerCategory !== undefined ? { producerCategory } : {}),
        };
        this.entries.push(entry);
        this.#byName.set(modelName, entry);
      }
    }
  }

  /** The declarations sent to the model (never an UNSPECIFIED kind). */
  declarations(): ToolDeclaration[] {
    return this.entries
      .filter((e) => e.schema.kind !== ToolKind.UNSPECIFIED)
      .map((e) =>
        create(ToolDeclarationSchema, {
          name: e.modelName,
          description: e.schema.description,
          ...(e.schema.inputSchema
            ? { inputSchema: e.schema.inputSchema }
            : {}),
        })
      );
  }

  /** The entry a `tool_use` name (or `provider.tool`) names. */
  lookup(name: string): ToolEntry | undefined {
    const direct = this.#byName.get(name);
    if (direct) return direct;
    const dot = name.indexOf(".");
    if (dot > 0) {
      const provider = name.slice(0, dot);
      const tool = name.slice(dot + 1);
      return this.entries.find((e) =>
        e.provider === provider && e.schema.name === tool
      );
    }
    return undefined;
  }

  /** True in plan mode. */
  get planMode(): boolean {
    return this.#planMode;
  }
}
