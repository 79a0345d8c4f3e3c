required_providers {
  kv = { source = "../../_plugins/kv" version = "~> 1.4" }
}

policy "reads_ok" {
  match  = { kind = "data_source" }
  action = "allow"
  action = "deny"
}

agent_profile "default" {
  max_turns = 
}

settings {
  log_level = "info
}
