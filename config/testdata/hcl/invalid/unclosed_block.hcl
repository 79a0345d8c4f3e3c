settings {
  log_level = "info"
}

agent_profile "default" { # ERROR: Unclosed configuration block
  max_turns = 10
