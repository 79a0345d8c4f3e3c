required_providers {
  kv = "github.com/acme/kv"
  fs = { source = 42, version = ["1.0"] }
}

policy "typed" {
  match  = { tool_name = 7, risk = "extreme", kind = "interactive" }
  action = 1
}

agent_profile "default" {
  tools          = "fs.*"
  slash_commands = ["summarize", 2]
  max_turns      = "10"
  max_cost_usd   = true
  max_depth      = 1.5
}

hook "post-apply" {
  provider = ["kv"]
  mode     = "watch"
}

settings {
  telemetry = "yes"
  log_level = "verbose"
  observability {
    endpoint           = "collector:4317"
    protocol           = "udp"
    sampling_ratio     = 1.5
    traces_enabled     = "true"
    metrics_enabled    = true
    logs_enabled       = true
    export_interval_ms = -1
    service_name       = "agent"
  }
  event_bus {
    subscribe_queue_bound = 0
  }
}
