# The task example: a scripted model (it replays script.json, so the run is
# deterministic and needs no API key) plans its work on the session's own
# todo list with the task tools. Run it from the repository root with
#   deno task agent run "Plan the release" --dir examples/task
# and resume the session (`--resume <id>`) to see the list rebuilt.

required_providers {
  scripted = { source = "builtin/scripted", version = "~> 0.1" }
  tasks    = { source = "builtin/task", version = "~> 0.1" }
}

provider "scripted" {
  script     = "./script.json"
  allow_read = ["."]
}

# The task provider takes no attributes and needs no permission: the list
# lives in the session's own events, written through the kernel.
provider "tasks" {}

# Listing is a read; creating and updating tasks are low-risk resource
# operations that only touch the session's list, so they run unasked.
policy "reads_ok" {
  match  = { kind = "data_source" }
  action = "allow"
}

policy "task_changes_ok" {
  match  = { provider = "tasks", risk = "low" }
  action = "allow"
}

agent_profile "default" {
  model {
    primary {
      provider = "scripted"
      id       = "scripted"
    }
  }
  tools            = ["tasks.*"]
  max_turns        = 10
  max_cost_usd     = 0.50
  max_wall_clock_s = 120
}
