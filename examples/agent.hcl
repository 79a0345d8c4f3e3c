# The configuration of an @ph/agent project. Check it (and the lock file
# beside it, in .agent/) with:
#
#   deno task check-config examples --locked --explain

required_providers {
  echo  = { source = "builtin/echo", version = "~> 0.1" }
  notes = { source = "./plugins/notes", version = ">= 0.2.0, < 1.0.0" }
}

# The first-party echo tool declares no permission, so it is granted none.
provider "echo" {
  prefix = "echo: "
}

# A plugin kept in the project. Its manifest (plugins/notes/plugin.json)
# declares what it may touch and the schema of this block; the allow_*
# attributes are the operator's grant, reviewed with the rest of the file.
provider "notes" {
  root = "./notes"
  tags = ["project", "review"]
  sync = {
    enabled    = false
    interval_s = 15 * 60
  }
  # Sensitive in the plugin's schema: only env("NAME") is accepted here.
  # api_token = env("NOTES_SYNC_TOKEN")

  allow_read  = ["./notes"]
  allow_write = ["./notes"]
  allow_net   = ["sync.notes.example:443"]
}

policy "reads_ok" {
  match  = { kind = "data_source" }
  action = "allow"
}

policy "note_writes_need_approval" {
  match  = { provider = "notes", kind = "resource" }
  action = "ask"
}

policy "never_delete_notes" {
  match  = { tool_name = "delete_note" }
  action = "deny"
}

policy "critical_blocked" {
  match  = { risk = "critical" }
  action = "deny"
}

agent_profile "default" {
  tools            = ["echo.*", "notes.*"]
  slash_commands   = ["summarize"]
  max_turns        = 60
  max_cost_usd     = 2.50
  max_wall_clock_s = 30 * 60
  max_depth        = 1
}

agent_profile "reviewer" {
  tools     = ["notes.read_note"]
  max_turns = 20
  max_depth = 0
}

hook "post-apply" {
  provider = "notes"
  mode     = "observe"
}

settings {
  log_level = "info"

  retry {
    base_delay_ms  = 250
    backoff_factor = 2
    max_retries    = 4
  }
}
