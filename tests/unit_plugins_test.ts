/**
 * The unit tests of `plugins/` that start no plugin process in one test
 * module (tests/unit_plugin_processes_test.ts runs those). The ripgrep
 * prefilter's test is here, not there: after it, in the same module, the
 * scripted plugin's cancellation log (plugins/scripted/scripted_test.ts,
 * "MUST 8") did not reach the test within its 2 s, three runs out of three.
 * Why the files run here and not as modules of their own: see
 * tests/unit_config_test.ts. `deno task test` skips `plugins/` by its glob;
 * tests/unit_misc_test.ts fails, naming the file, when a test file under
 * `plugins/` is imported by no aggregate.
 *
 * @module
 */
import "../plugins/builtin_test.ts";
import "../plugins/compactor/compact_test.ts";
import "../plugins/filesystem/_diff_test.ts";
import "../plugins/filesystem/_multi_test.ts";
import "../plugins/filesystem/_tools_test.ts";
import "../plugins/lsp/lsp_test.ts";
import "../plugins/mcp/_bridge_test.ts";
import "../plugins/mcp/_sandbox_hint_test.ts";
import "../plugins/mcp/_schema_test.ts";
import "../plugins/openai/_bpe_count_test.ts";
import "../plugins/openai/config_test.ts";
import "../plugins/scripted/script_test.ts";
import "../plugins/sdk/_posix_path_test.ts";
import "../plugins/sdk/confined_fs_test.ts";
import "../plugins/sdk/logger_test.ts";
import "../plugins/search/_glob_test.ts";
import "../plugins/search/_ripgrep_test.ts";
import "../plugins/search/_search_test.ts";
import "../plugins/search/_walk_test.ts";
import "../plugins/tui/screen_test.ts";
import "../plugins/tui/tui_test.ts";
import "../plugins/web/_fetch_test.ts";
