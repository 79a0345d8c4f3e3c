policy "reads_ok" {
  match  = { kind = "data_source" }
  action = "allow"
}

policy "fs_writes_need_approval" {
  match  = { provider = "fs", kind = "resource" }
  action = "ask"
}

policy "web_writes_need_approval" {
  match  = { provider = "web", kind = "resource" }
  action = "ask"
}

policy "never_delete" {
  match  = { tool_name = "delete_tree" }
  action = "deny"
}

policy "critical_blocked" {
  match = {
    risk = "critical"
  }
  action = "deny"
}

# Matches everything: legal, but the compiler warns about it.
policy "catch_all" {
  match  = {}
  action = "ask"
}
