settings {
  telemetry # ERROR: Argument or block definition required
  log_level = "info"
}
agent_profile.default { # ERROR: Argument or block definition required
}
