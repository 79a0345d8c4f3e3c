# Policy tests for this example (agent test examples/web).

test "fetching_a_page_runs_freely" {
  call   = { provider = "web", tool = "web_fetch", input = { url = "https://example.org/" } }
  expect = "allow"
  rule   = "reads_ok"
}
