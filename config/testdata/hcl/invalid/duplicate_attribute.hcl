agent_profile "default" {
  max_turns = 10
  max_depth = 2
  max_turns = 20 # ERROR: Attribute redefined
}

settings {
  log_level = "info"
  telemetry = false
  log_level = "debug" # ERROR: Attribute redefined
}
