# The quickstart project: a scripted model (it replays script.json, so the
# run is deterministic and needs no API key) and the filesystem tool,
# confined to this directory. Run it with `deno task demo`.

required_providers {
  scripted = { source = "builtin/scripted", version = "~> 0.1" }
  fs       = { source = "builtin/filesystem", version = "~> 0.1" }
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

# Reads run without asking; every write is planned, shown with its diff and
# asked for (the demo approves with --approve-all).
policy "reads_ok" {
  match  = { kind = "data_source" }
  action = "allow"
}

policy "writes_need_approval" {
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
  tools            = ["fs.*"]
  max_turns        = 10
  max_cost_usd     = 0.50
  max_wall_clock_s = 120
}
