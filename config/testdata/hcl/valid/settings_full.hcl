settings {
  default_frontend = "web"
  log_level        = "debug"
  telemetry        = true

  retry {
    base_delay_ms  = 250
    backoff_factor = 3
    max_retries    = 4
  }

  observability {
    endpoint           = "collector.internal:4318"
    protocol           = "http"
    sampling_ratio     = 0.25
    traces_enabled     = false
    metrics_enabled    = true
    logs_enabled       = true
    export_interval_ms = 15000
    service_name       = "agent-dev"
    resource_attrs     = { team = "platform", "deployment.environment" = "dev" }
  }

  event_bus {
    subscribe_queue_bound = 256
  }
}
