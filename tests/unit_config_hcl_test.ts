/**
 * The unit tests of `config/hcl/` (the HCL parser, evaluator and their
 * property and differential tests) in one test module, beside
 * tests/unit_config_test.ts so that the two halves of `config/` run on two
 * workers. Why the files run here and not as modules of their own: see
 * tests/unit_config_test.ts.
 *
 * @module
 */
import "../config/hcl/differential_test.ts";
import "../config/hcl/evaluate_test.ts";
import "../config/hcl/fixtures_test.ts";
import "../config/hcl/lexer_test.ts";
import "../config/hcl/parse_test.ts";
import "../config/hcl/property_test.ts";
import "../config/hcl/sensitive_test.ts";
import "../config/hcl/value_test.ts";
