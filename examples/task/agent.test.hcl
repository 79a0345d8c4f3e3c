# Policy tests for this example (agent test examples/task): the task list
# is the agent's own scratch space, so its low-risk changes need no approval.

test "listing_tasks_runs_freely" {
  call   = { provider = "tasks", tool = "task_list" }
  expect = "allow"
  rule   = "reads_ok"
}

test "creating_a_task_runs_freely" {
  call   = { provider = "tasks", tool = "task_create", input = { title = "Write tests" } }
  expect = "allow"
  rule   = "task_changes_ok"
}

test "updating_a_task_runs_freely" {
  call   = { provider = "tasks", tool = "task_update", input = { id = "1", status = "done" } }
  expect = "allow"
  rule   = "task_changes_ok"
}
