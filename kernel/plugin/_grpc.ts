/**
 * The gRPC adapter (`proto/grpc_adapter.ts`, which pulls in grpc-js),
 * loaded on first use so that a launch overlaps the load with the
 * plugin's own start.
 *
 * @module
 */

/** `proto/grpc_adapter.ts`, loaded on first use (it pulls in grpc-js). */
export type GrpcAdapter = typeof import("../../proto/grpc_adapter.ts");
let grpcAdapterModule: Promise<GrpcAdapter> | undefined;

/**
 * Starts loading the gRPC adapter (and grpc-js) without waiting: call it
 * when a launch is certain, so the load overlaps the plugin's own start.
 *
 * @returns The module.
 */
export function loadGrpcAdapter(): Promise<GrpcAdapter> {
  return grpcAdapterModule ??= import("../../proto/grpc_adapter.ts");
}
