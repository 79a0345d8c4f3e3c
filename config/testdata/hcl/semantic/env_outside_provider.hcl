# env() is allowed only in provider bodies and a mirror's auth.
settings {
  default_frontend = env("FRONTEND") # ERROR: Function calls not allowed
  log_level        = "info"
  telemetry        = false
}

agent_profile "default" {
  tools = ["fs.*", env("EXTRA_TOOL")] # ERROR: Function calls not allowed
}
