# Policy tests for this example (agent test examples/everyday; check-config
# runs them too).

test "reads_run_freely" {
  call   = { provider = "fs", tool = "read_file", input = { path = "README.md" } }
  expect = "allow"
  rule   = "reads_ok"
}

test "file_writes_ask" {
  call   = { provider = "fs", tool = "write_file", input = { path = "notes.md", content = "x" } }
  expect = "ask"
  rule   = "file_writes_ask"
}

test "searching_runs_freely" {
  call   = { provider = "search", tool = "grep", input = { pattern = "TODO" } }
  expect = "allow"
}

test "fetching_runs_freely" {
  call   = { provider = "web", tool = "web_fetch", input = { url = "https://example.org/" } }
  expect = "allow"
}

test "task_changes_run_freely" {
  call   = { provider = "tasks", tool = "task_create", input = { title = "x" } }
  expect = "allow"
  rule   = "task_changes_ok"
}

test "remembering_runs_freely" {
  call   = { provider = "memory", tool = "remember", input = { text = "x" } }
  expect = "allow"
  rule   = "remember_ok"
}

test "forgetting_is_asked_for" {
  call   = { provider = "memory", tool = "forget", input = { id = "x" } }
  expect = "ask"
  rule   = "default"
}

test "asking_the_user_runs" {
  call   = { provider = "ask", tool = "ask_user", input = { question = "Which file?" } }
  expect = "allow"
}

test "shell_reads_run_freely" {
  call   = { provider = "sh", tool = "bash", input = { command = "ls -la | wc -l" } }
  expect = "allow"
}

test "rm_behind_an_allowed_read_is_denied" {
  call    = { provider = "sh", tool = "bash", input = { command = "cat README.md && rm -rf .agent" } }
  expect  = "deny"
  rule    = "no_rm"
  segment = "rm -rf .agent"
}

test "sudo_is_denied" {
  call   = { provider = "sh", tool = "bash", input = { command = "sudo ls" } }
  expect = "deny"
  rule   = "no_sudo"
}

test "push_in_a_substitution_is_denied" {
  call    = { provider = "sh", tool = "bash", input = { command = "echo $(git push)" } }
  expect  = "deny"
  rule    = "no_push"
  segment = "git push"
}
