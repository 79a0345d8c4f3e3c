/**
 * `MemoryService`: capabilities, Configure, Recall, the record CRUD,
 * ratification, ListRecords and GetRecord.
 *
 * @module
 */
import {
  Category,
  HookPoint,
} from "../../proto/gen/pluggableharness/common/v1/types_pb.ts";
import { MemoryService } from "../../proto/gen/pluggableharness/memory/v1/service_pb.ts";
import {
  MemoryScope,
  MemoryType,
} from "../../proto/gen/pluggableharness/memory/v1/types_pb.ts";
import { configSchemaOf, service } from "../sdk/mod.ts";
import { DEFAULT_TOKEN_BUDGET, MemoryFailure } from "./_memory.ts";
import type { MemoryHost } from "./_host.ts";
import { renderMutation } from "./_render.ts";
import {
  originOf,
  recordMessage,
  rpc,
  scopeName,
  statusEnum,
  statusName,
  textsOf,
  typeName,
  ULID,
} from "./_wire.ts";

/** The MemoryService binding over the host's provider. */
export function memoryService(host: MemoryHost): ReturnType<typeof service> {
  const { memory, manifest, configure, producer } = host;
  return service(MemoryService, {
    getCapabilities: () => ({
      capabilities: {
        defaultTokenBudget: BigInt(DEFAULT_TOKEN_BUDGET),
        supportedTypes: [
          MemoryType.USER,
          MemoryType.FEEDBACK,
          MemoryType.PROJECT,
          MemoryType.REFERENCE,
        ],
        supportedScopes: [
          MemoryScope.SESSION,
          MemoryScope.PROJECT,
          MemoryScope.GLOBAL,
        ],
        ratificationSupported: memory.config?.reviewWrites ?? false,
        slashCommands: [],
        configSchema: configSchemaOf(manifest),
        supportedHookPoints: [
          HookPoint.POST_MODEL_RESPONSE,
          HookPoint.SESSION_END,
        ],
      },
    }),
    configure: (req) =>
      rpc(() => {
        configure(req.config);
        return {};
      }),
    recall: (req) =>
      rpc(() => {
        if (!req.modelTarget) {
          throw new MemoryFailure(
            "invalid_request",
            "Recall: model_target is required",
          );
        }
        if (req.turnId && !ULID.test(req.turnId)) {
          throw new MemoryFailure(
            "invalid_request",
            `Recall: turn_id ${JSON.stringify(req.turnId)} is not a ULID`,
          );
        }
        if (req.tokenBudget < 0n) {
          throw new MemoryFailure(
            "invalid_request",
            `Recall: token_budget ${req.tokenBudget} is negative`,
          );
        }
        const ranked = memory.recall({
          sessionId: req.sessionId,
          tokenBudget: Number(req.tokenBudget),
          filesTouched: req.filesTouched,
          types: req.typeFilter.map(typeName),
          scopes: req.scopeFilter.map(scopeName),
          includePending: req.includePending,
        });
        return {
          records: ranked.map((r) => recordMessage(r.record, r.score)),
        };
      }),
    record: (req, { metadata }) =>
      rpc(async () => {
        const r = await memory.record({
          type: typeName(req.type),
          scope: scopeName(req.scope),
          ...(req.id !== undefined ? { id: req.id } : {}),
          title: req.title,
          content: textsOf(req.content, "Record"),
        }, originOf(metadata));
        return { result: { id: r.id, status: statusEnum(r.status) } };
      }),
    updateRecord: (req) =>
      rpc(async () => {
        const r = await memory.update(req.id, {
          ...(req.title !== undefined ? { title: req.title } : {}),
          content: textsOf(req.content, `UpdateRecord "${req.id}"`),
        });
        return { result: { id: r.id, status: statusEnum(r.status) } };
      }),
    deleteRecord: (req) =>
      rpc(() => {
        memory.delete(req.id);
        return { result: { deleted: true } };
      }),
    approveRecord: (req) =>
      rpc(() => {
        const r = memory.approve(req.id);
        return { result: { id: r.id, status: statusEnum(r.status) } };
      }),
    rejectRecord: (req) =>
      rpc(() => {
        memory.reject(req.id);
        return { result: { deleted: true } };
      }),
    render: (req) => ({
      tree: renderMutation(req.payload, req.schemaVersion),
    }),
    listRecords: (req) =>
      rpc(() => {
        const size = req.pageSize === 0 ? 50 : req.pageSize;
        if (size < 0 || size > 500) {
          throw new MemoryFailure(
            "invalid_request",
            `ListRecords: page_size ${req.pageSize} is not between 1 and 500`,
          );
        }
        const offset = req.pageToken === "" ? 0 : Number(req.pageToken);
        if (!Number.isInteger(offset) || offset < 0) {
          throw new MemoryFailure(
            "invalid_request",
            `ListRecords: page_token ${
              JSON.stringify(req.pageToken)
            } is not one this provider issued`,
          );
        }
        const all = memory.list({
          types: req.typeFilter.map(typeName),
          scopes: req.scopeFilter.map(scopeName),
          statuses: req.statusFilter === undefined
            ? []
            : [statusName(req.statusFilter)],
        });
        const page = all.slice(offset, offset + size);
        return {
          records: page.map((r) => recordMessage(r)),
          nextPageToken: offset + size < all.length
            ? String(offset + size)
            : "",
        };
      }),
    getRecord: (req) =>
      rpc(() => ({ record: recordMessage(memory.get(req.id)) })),
    describe: () => producer(Category.MEMORY),
  });
}
