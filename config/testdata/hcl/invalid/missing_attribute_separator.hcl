policy "fs_writes" {
  match  = { provider = "fs" kind = "resource" } # ERROR: Missing attribute separator
  action = "ask"
}
