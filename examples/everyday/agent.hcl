# An everyday coding session that uses every first-party provider: a
# scripted model (it replays script.json, so the run is deterministic and
# needs no API key) plans with tasks, finds code with glob and grep, reads
# it, counts lines with bash, fetches the team wiki, keeps a fact in an MCP
# knowledge graph, asks the user, remembers a project fact, and edits a
# file. AGENTS.md is in every prompt; remembered facts are recalled into
# later ones. See README.md for how to run it.

required_providers {
  scripted = { source = "builtin/scripted", version = "~> 0.1" }
  fs       = { source = "builtin/filesystem", version = "~> 0.1" }
  search   = { source = "builtin/search", version = "~> 0.1" }
  sh       = { source = "builtin/exec", version = "~> 0.1" }
  web      = { source = "builtin/web", version = "~> 0.1" }
  graph    = { source = "builtin/mcp", version = "~> 0.1" }
  ask      = { source = "builtin/user", version = "~> 0.1" }
  tasks    = { source = "builtin/task", version = "~> 0.1" }
  docs     = { source = "builtin/agents-md", version = "~> 0.1" }
  memory   = { source = "builtin/memory", version = "~> 0.1" }
}

provider "scripted" {
  script     = "./script.json"
  allow_read = ["."]
}

# read_file, write_file, edit_file, multi_edit — in this directory only.
provider "fs" {
  roots       = ["."]
  allow_read  = ["."]
  allow_write = ["."]
}

# glob and grep: reads only.
provider "search" {
  roots      = ["."]
  allow_read = ["."]
}

# bash, run in this directory; the command rules below judge each segment.
provider "sh" {
  roots             = ["."]
  allow_run         = ["bash"]
  allow_read        = ["."]
  default_timeout_s = 30
  max_timeout_s     = 120
  env = {
    LANG = "C.UTF-8"
  }
}

# web_fetch may reach the local wiki (serve_wiki.ts) and nothing else.
provider "web" {
  max_chars       = 20000
  timeout_seconds = 10
  max_redirects   = 2
  allow_net       = ["127.0.0.1"]
}

# The reference MCP knowledge-graph server, run under Deno over stdio with
# exactly the permissions it needs: its graph file under .agent/ (the file
# must be an absolute path, given in EVERYDAY_GRAPH_FILE) and the one
# variable it reads.
provider "graph" {
  command = "deno"
  args = [
    "run", "--no-prompt",
    "--allow-read=.agent", "--allow-write=.agent",
    "--allow-env=MEMORY_FILE_PATH",
    "npm:@modelcontextprotocol/server-memory@2026.8.31",
  ]
  env = {
    MEMORY_FILE_PATH = env("EVERYDAY_GRAPH_FILE")
  }
  tools                = ["create_entities", "open_nodes", "search_nodes"]
  tool_prefix          = "graph_"
  call_timeout_seconds = 30
  allow_run            = ["deno"]
  # The server runs in the bridge's OS sandbox, which shows it what the
  # bridge is granted: the same directory as its own flags.
  allow_read  = [".agent"]
  allow_write = [".agent"]
}

# ask_user: needs no permission.
provider "ask" {}

# task_create, task_update, task_list: the list lives in the session.
provider "tasks" {}

# AGENTS.md (and CLAUDE.md, GEMINI.md) from the project root down, in
# every prompt.
provider "docs" {
  root         = "."
  token_budget = 2000
  allow_read   = ["."]
}

# Project memories in .agent/memory.sqlite: recalled into every prompt,
# written and searched with remember and search.
provider "memory" {
  path         = ".agent/memory.sqlite"
  token_budget = 1000
  allow_read   = [".agent"]
  allow_write  = [".agent"]
  allow_env    = ["HOME", "XDG_DATA_HOME"] # the manifest asks for both (to expand ~ and $XDG_DATA_HOME paths)
}

# Reads of any kind run without asking.
policy "reads_ok" {
  match  = { kind = "data_source" }
  action = "allow"
}

# Every file change is planned, shown with its diff and asked for.
policy "file_writes_ask" {
  match  = { provider = "fs", kind = "resource" }
  action = "ask"
}

# So is every change to the MCP server's graph.
policy "graph_writes_ask" {
  match  = { provider = "graph", kind = "resource" }
  action = "ask"
}

# The session's own todo list changes freely.
policy "task_changes_ok" {
  match  = { provider = "tasks", risk = "low" }
  action = "allow"
}

# Remembering a fact only adds a record to the project's memory; forgetting
# one is asked for (the default for a resource).
policy "remember_ok" {
  match  = { provider = "memory", tool_name = "remember" }
  action = "allow"
}

# Shell: read-only commands run unasked, destructive ones never; anything
# else (the default) is asked for.
policy "sh_ls" {
  match  = { provider = "sh", command = "ls" }
  action = "allow"
}

policy "sh_ls_args" {
  match  = { provider = "sh", command = "ls *" }
  action = "allow"
}

policy "sh_wc" {
  match  = { provider = "sh", command = "wc *" }
  action = "allow"
}

policy "sh_grep" {
  match  = { provider = "sh", command = "grep *" }
  action = "allow"
}

policy "sh_cat" {
  match  = { provider = "sh", command = "cat *" }
  action = "allow"
}

policy "sh_git_read" {
  match  = { provider = "sh", command = "git diff*" }
  action = "allow"
}

policy "no_rm" {
  match  = { command = "rm *" }
  action = "deny"
}

policy "no_sudo" {
  match  = { command = "sudo *" }
  action = "deny"
}

policy "no_push" {
  match  = { command = "git push*" }
  action = "deny"
}

agent_profile "default" {
  model {
    primary {
      provider = "scripted"
      id       = "scripted"
    }
  }
  tools = [
    "fs.*", "search.*", "sh.*", "web.*", "graph.*", "ask.*", "tasks.*",
    "memory.*",
  ]
  max_turns        = 16
  max_cost_usd     = 1.00
  max_wall_clock_s = 180
}
