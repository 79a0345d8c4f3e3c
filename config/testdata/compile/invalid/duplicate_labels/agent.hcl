required_providers {
  readme = { source = "../../_plugins/ctx", version = "0.3.0" }
}

required_providers {
  kv = { source = "../../_plugins/kv", version = "~> 1.4" }
}

provider "readme" {
  allow_read = ["."]
}

provider "readme" {
  files = ["NOTES.md"]
}

policy "no_writes" {
  match  = { kind = "resource" }
  action = "deny"
}

policy "no_writes" {
  match  = { provider = "readme" }
  action = "deny"
}

agent_profile "default" {
  max_turns = 10
}

agent_profile "default" {
  max_turns = 20
}

settings {
  log_level = "info"
}

settings {
  log_level = "debug"
}
