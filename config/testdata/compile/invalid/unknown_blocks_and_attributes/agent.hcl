session {
  max_turns = 10
}

max_turns = 10

polciy "typo" {
  match  = {}
  action = "deny"
}

agent_profile "default" {
  max_turn      = 10
  fork_history  = true
  policy_overrides {
    deny = ["fs.*"]
  }
  model {
    primary {
      provider = "claude"
      id       = "x"
      region   = "eu"
    }
  }
}

hook "post-apply" {
  provider   = "journal"
  mode       = "observe"
  timeout_ms = 500
}

settings {
  log_levle = "debug"
  retry {
    base_delay_ms  = 250
    backoff_factor = 2
    max_retries    = 4
    jitter         = true
  }
}
