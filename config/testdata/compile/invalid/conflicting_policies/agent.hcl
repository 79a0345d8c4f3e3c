policy "block_high" {
  match  = { risk = "high" }
  action = "deny"
}

policy "also_block_high" {
  match  = { risk = "high" }
  action = "deny"
}

policy "fs_writes" {
  match  = { provider = "fs", kind = "resource" }
  action = "ask"
}

policy "fs_writes_allowed" {
  match  = { kind = "resource", provider = "fs" }
  action = "allow"
}

policy "high_resources" {
  match  = { risk = "high", kind = "resource" }
  action = "ask"
}
