# Constant expressions: legal wherever values are evaluated.
agent_profile "default" {
  max_turns        = 60 * 2
  max_wall_clock_s = 30 * 60
  max_cost_usd     = 10 / 4
  max_depth        = 5 - 3 % 2
  tools            = 1 < 2 ? ["fs.*"] : []
}

settings {
  log_level = true && !false ? "debug" : "info"
  telemetry = 1 + 1 == 2 || false
  retry {
    base_delay_ms  = -(-500)
    backoff_factor = (1 + 1) * 1.5
    max_retries    = [3, 4, 5][1]
  }
  observability {
    service_name   = "agent-${"prod"}-${1 + 1}"
    sampling_ratio = { low = 0.1, high = 0.9 }.high
    resource_attrs = { for k, v in { team = "platform", tier = "gold" } : k => v if k != "tier" }
    endpoint       = "collector.internal:${4000 + 318}"
  }
}
