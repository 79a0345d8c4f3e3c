policy "ignored" {
  match  = { tool_name = "x" }
  action = "deny"
}
