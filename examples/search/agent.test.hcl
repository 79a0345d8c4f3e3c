# Policy tests for this example (agent test examples/search; check-config runs them
# too): reads run freely, file changes wait for approval.

test "reads_run_freely" {
  call   = { provider = "fs", tool = "read_file", input = { path = "README.md" } }
  expect = "allow"
  rule   = "reads_ok"
}

test "writes_need_approval" {
  call   = { provider = "fs", tool = "write_file", input = { path = "notes.md", content = "x" } }
  expect = "ask"
  rule   = "changes_need_approval"
}

test "edits_need_approval" {
  call   = { provider = "fs", tool = "edit_file", input = { path = "notes.md" } }
  expect = "ask"
  rule   = "changes_need_approval"
}

test "multi_file_edits_need_approval" {
  call   = { provider = "fs", tool = "multi_edit", input = { files = [] } }
  expect = "ask"
  rule   = "changes_need_approval"
}

test "grep_runs_freely" {
  call   = { provider = "search", tool = "grep", input = { pattern = "TODO" } }
  expect = "allow"
  rule   = "reads_ok"
}

test "glob_runs_freely" {
  call   = { provider = "search", tool = "glob", input = { pattern = "**/*.md" } }
  expect = "allow"
  rule   = "reads_ok"
}
