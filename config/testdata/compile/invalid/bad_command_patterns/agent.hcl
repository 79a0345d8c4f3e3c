policy "git_status_ok" {
  match  = { tool_name = "bash", command = "git status*" }
  action = "allow"
}

policy "empty_pattern" {
  match  = { command = "" }
  action = "deny"
}

policy "two_commands" {
  match  = { command = "git status && rm *" }
  action = "deny"
}

policy "open_quote" {
  match  = { command = "echo 'unterminated*" }
  action = "allow"
}

policy "not_normalized" {
  match  = { command = "git  commit -m \"wip*\"" }
  action = "ask"
}

policy "typo" {
  match  = { comand = "rm *" }
  action = "deny"
}

policy "git_status_again" {
  match  = { command = "git status*", tool_name = "bash" }
  action = "deny"
}
