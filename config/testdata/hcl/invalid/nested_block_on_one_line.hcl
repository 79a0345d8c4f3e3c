agent_profile "default" {
  model { primary { provider = "claude" } } # ERROR: Argument definition required
  max_turns = 5
}
