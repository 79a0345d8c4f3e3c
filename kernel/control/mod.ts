/**
 * The control plane (seed 004, docs/control-plane.md): the `<cp:*>`
 * channels between the harness and a running agent — their table
 * ({@linkcode CHANNELS}), typed messages and their rendering
 * ({@linkcode renderControl}), rate limits, the per-session queue drained
 * at round boundaries ({@linkcode ControlPlane}) and the parser of the
 * agent→system tags ({@linkcode parseAgentOutput}).
 *
 * @module
 */
export {
  AGENT_CHANNELS,
  type AgentChannel,
  type ChannelAttributes,
  type ChannelDirection,
  type ChannelInfo,
  type ChannelName,
  CHANNELS,
  DENIAL_REASON_CODES,
  type DenialReasonCode,
  isChannelName,
  type MessageOrigin,
  type RateLimit,
  SYSTEM_CHANNELS,
  type SystemChannel,
} from "./channels.ts";
export {
  type AnyControlMessage,
  controlAttributes,
  type ControlMessage,
  escapeControlText,
  pluginControlMessage,
  renderControl,
  unescapeControlText,
} from "./render.ts";
export { ControlRateLimiter } from "./rate_limit.ts";
export {
  type AgentOutput,
  type AgentTag,
  type MalformedTag,
  parseAgentOutput,
} from "./tags.ts";
export {
  ControlPlane,
  type ControlPlaneOptions,
  controlPromptSection,
  type ControlView,
  localTime,
  type PostOutcome,
} from "./control_plane.ts";
export { appendControlBlocks } from "./history.ts";
export { LiveTagFilter } from "./live_filter.ts";
export {
  FS_CHANGE_MAX_PATHS,
  type FsChangeKind,
  FsChanges,
  SELF_COMMAND_GRACE_MS,
  SELF_WRITE_GRACE_MS,
  startFsWatch,
} from "./fs_change.ts";
export {
  MEMORY_STALE_DAYS,
  postMemoryOutcome,
  postMemoryRecall,
  type RecalledMemory,
} from "./memory_channels.ts";
export {
  denialReasonOf,
  isEmptyResult,
  postToolOutcome,
  postToolsChanged,
  type ToolOutcomeInfo,
} from "./tool_channels.ts";
export { MalformedAgentStatusError } from "./errors.ts";
export { postLostCommands, ShellWatch } from "./shell_watch.ts";
export {
  type ControlEndpoint,
  type ControlEndpointOptions,
  type DeliveredTrigger,
  deliverToLiveSession,
  type EndpointSession,
  findLiveHolder,
  type LiveClientOptions,
  RUN_DIR,
  startControlEndpoint,
  type TriggerRequest,
} from "./control_endpoint.ts";
export {
  claimForResume,
  type ClaimOutcome,
  type SessionClaim,
  tryClaimSession,
} from "./session_claim.ts";
export { type DueTimer, dueTimersOf, lastTimerFirings } from "./due_timers.ts";
