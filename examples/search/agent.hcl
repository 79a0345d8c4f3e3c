# Find, then change several files at once: a scripted model (it replays
# script.json, so the run is deterministic and needs no API key) uses
# search.glob and search.grep to find the TODOs, then resolves them in two
# files with one filesystem.multi_edit: one plan item, one diff per file,
# applied all or nothing once approved.

required_providers {
  scripted = { source = "builtin/scripted", version = "~> 0.1" }
  fs       = { source = "builtin/filesystem", version = "~> 0.1" }
  search   = { source = "builtin/search", version = "~> 0.1" }
}

provider "scripted" {
  script     = "./script.json"
  allow_read = ["."]
}

provider "fs" {
  roots       = ["."]
  allow_read  = ["."]
  allow_write = ["."]
}

# Read only: the manifest asks to read "." and nothing else.
provider "search" {
  roots      = ["."]
  allow_read = ["."]
}

# Searches and reads run without asking; every change is planned, shown
# with its diff and asked for.
policy "reads_ok" {
  match  = { kind = "data_source" }
  action = "allow"
}

policy "changes_need_approval" {
  match  = { provider = "fs", kind = "resource" }
  action = "ask"
}

agent_profile "default" {
  model {
    primary {
      provider = "scripted"
      id       = "scripted"
    }
  }
  tools            = ["fs.*", "search.*"]
  max_turns        = 10
  max_cost_usd     = 0.50
  max_wall_clock_s = 120
}
