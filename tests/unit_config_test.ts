/**
 * The unit tests of `config/` (but `config/hcl/`, run by
 * tests/unit_config_hcl_test.ts) in one test module.
 *
 * `deno test` runs each test module in its own worker, and Deno 2.9.6 pays
 * ~0.35 s of CPU for every one before its first test (its bench runtime
 * allocates an 80 MB array at load), and every module loads its import
 * graph again. So the full run (`deno task test`) skips `config/` by its
 * glob (the `--ignore` of deno.json's `test` task) and runs its files here,
 * each imported once: every test is kept, under its own name, and
 * type-checked as before. Run one file on its own with
 * `deno test -A <file>` as usual.
 *
 * tests/unit_misc_test.ts fails, naming the file, when a test file under
 * `config/` is imported by no aggregate.
 *
 * @module
 */
import "../config/_semver_test.ts";
import "../config/check_test.ts";
import "../config/checksum_test.ts";
import "../config/compile_differential_test.ts";
import "../config/compile_fixtures_test.ts";
import "../config/compile_property_test.ts";
import "../config/compile_test.ts";
import "../config/conformance_compile_test.ts";
import "../config/conformance_test.ts";
import "../config/control_plane_test.ts";
import "../config/decode_state_test.ts";
import "../config/decode_test.ts";
import "../config/default_config_test.ts";
import "../config/explain_delegation_test.ts";
import "../config/global_config_test.ts";
import "../config/judge_profile_test.ts";
import "../config/lock_file_test.ts";
import "../config/lock_test.ts";
import "../config/named_agents_test.ts";
import "../config/plan_diff_test.ts";
import "../config/policy_test_file_test.ts";
import "../config/policy_writer_test.ts";
import "../config/profiles_test.ts";
import "../config/provider_schema_test.ts";
import "../config/render_test.ts";
import "../config/sandbox_report_test.ts";
import "../config/slash_frontend_check_test.ts";
import "../config/version_constraint_test.ts";
