settings {
  log_level = 'info' # ERROR: Invalid character
  telemetry = true; # ERROR: Invalid character
  default_frontend = `web` # ERROR: Invalid character
}
agent_profile "default" {
  max_turns = 10 & 2 # ERROR: Unsupported operator
}
