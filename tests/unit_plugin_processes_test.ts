/**
 * The tests of `plugins/` that start a first-party plugin through the real
 * `PluginHost` in one test module, beside
 * tests/unit_plugins_test.ts so that the two halves of `plugins/` run on
 * two workers. Why the files run here and not as modules of their own: see
 * tests/unit_config_test.ts.
 *
 * @module
 */
import "../plugins/exec/exec_test.ts";
import "../plugins/filesystem/filesystem_test.ts";
import "../plugins/filesystem/swap_race_test.ts";
import "../plugins/scripted/scripted_test.ts";
import "../plugins/search/search_test.ts";
