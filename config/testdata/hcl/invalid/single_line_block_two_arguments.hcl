agent_profile "default" {
  model {
    primary { provider = "claude", id = "model-large-2" } # ERROR: Invalid single-argument block definition
    fallback { provider = "claude" id = "model-medium-2" } # ERROR: Invalid single-argument block definition
  }
}
