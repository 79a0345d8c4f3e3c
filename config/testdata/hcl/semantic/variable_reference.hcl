agent_profile "default" {
  max_turns = var.max_turns # ERROR: Variables not allowed
  model {
    primary {
      provider = claude # ERROR: Variables not allowed
      id       = "model-large-2"
    }
  }
}
