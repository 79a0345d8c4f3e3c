/**
 * The unit tests of `kernel/` and `contract/` in one test module.
 *
 * `deno test` runs each test module in its own worker, and Deno 2.9.6 pays
 * for every worker: its bench runtime allocates a 10,000,000-element array
 * (80 MB) at load, ~0.35 s of CPU per module on the CI machine, more than
 * these files' own tests take (45 files, ~5 s of tests in all). So the full
 * run (`deno task test`) skips these files by their folders' glob (the `--ignore`
 * of deno.json's `test` task) and runs them here, each imported once: every test is kept,
 * under its own name, and type-checked as before. Run one file on its own
 * with `deno test -A <file>` as usual.
 *
 * tests/unit_misc_test.ts fails, naming the file, when a test file under
 * those folders is imported by no aggregate.
 *
 * @module
 */

// First: its first test calls the shared ulid() with a fixed time, which
// a ulid() at the current time, from any test before it, would move on
// (the generator is monotonic).
import "../kernel/state/ulid_test.ts";
import "../contract/cost_test.ts";
import "../contract/manifest_test.ts";
import "../contract/permissions_test.ts";
import "../contract/plugin_identity_test.ts";
import "../contract/policy_test.ts";
import "../contract/shell_command_test.ts";
import "../contract/tokens_test.ts";
import "../kernel/_slash_routes_test.ts";
import "../kernel/agent/approval_gate_test.ts";
import "../kernel/agent/concurrency_test.ts";
import "../kernel/agent/count_overlap_test.ts";
import "../kernel/agent/doom_loop_test.ts";
import "../kernel/agent/hook_dispatch_test.ts";
import "../kernel/agent/interactive_gate_test.ts";
import "../kernel/agent/model_call_test.ts";
import "../kernel/agent/policy_probe_test.ts";
import "../kernel/agent/provider_context_test.ts";
import "../kernel/agent/session_spec_from_plan_test.ts";
import "../kernel/agent/session_test.ts";
import "../kernel/agent/token_count_test.ts";
import "../kernel/agent/tracing_test.ts";
import "../kernel/bus/event_bus_test.ts";
import "../kernel/bus/topic_test.ts";
import "../kernel/callback/_frames_test.ts";
import "../kernel/control/channels_session_test.ts";
import "../kernel/control/compaction_channels_test.ts";
import "../kernel/control/control_endpoint_test.ts";
import "../kernel/control/control_plane_test.ts";
import "../kernel/control/fs_change_test.ts";
import "../kernel/control/live_filter_test.ts";
import "../kernel/control/memory_channels_test.ts";
import "../kernel/frontend/delta_fanout_test.ts";
import "../kernel/plugin/host_test.ts";
import "../kernel/process/_process_output_test.ts";
import "../kernel/process/launcher_test.ts";
import "../kernel/process/sandbox_test.ts";
import "../kernel/registry/archive_test.ts";
import "../kernel/state/_convert_test.ts";
import "../kernel/state/event_kinds_test.ts";
import "../kernel/state/hash_chain_test.ts";
import "../kernel/state/keyed_chain_test.ts";
import "../kernel/state/memory_session_store_test.ts";
import "../kernel/state/postgres_session_store_test.ts";
import "../kernel/state/sqlite_session_store_test.ts";
