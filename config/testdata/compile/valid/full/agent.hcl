# Every block type: two local plugins with grants, a context provider with a
# token budget, a forge provider checked against its lock entry, policies,
# two profiles with a model chain, hooks and complete settings.

required_providers {
  kv     = { source = "../../_plugins/kv", version = "~> 1.4" }
  readme = { source = "../../_plugins/ctx", version = ">= 0.3.0, < 0.4.0" }
  claude = {
    source  = "github.com/example-org/provider-claude"
    version = ">= 2.1.0, < 3.0.0"
  }
}

provider "claude" {
  api_key  = env("CLAUDE_API_KEY")
  base_url = "https://llm.internal.example"

  allow_net = ["api.claude.example:443"]
}

provider "kv" {
  endpoint = "https://kv.example"
  token    = env("KV_TOKEN")
  retries  = "3"
  verbose  = "true"
  tags     = ["a", "b"]
  ports    = [443, 8000 + 443]
  labels   = { team = "platform", "cost-center" = 42 }
  tls = {
    client_key  = env("KV_CLIENT_KEY")
    server_name = "kv.example"
  }

  allow_env  = ["KV_*"]
  allow_read = ["./data"]
  allow_net  = ["kv.example:443"]

  allow_subscribe = ["kernel.event.tool_result", "kernel.event.*@all"]
}

provider "readme" {
  files        = ["README.md", "docs/**/README.md"]
  token_budget = 3000
  allow_read   = ["."]
}

policy "reads_ok" {
  match  = { kind = "data_source" }
  action = "allow"
}

policy "kv_writes_need_approval" {
  match  = { provider = "kv", kind = "resource" }
  action = "ask"
}

policy "never_drop" {
  match  = { tool_name = "drop" }
  action = "deny"
}

policy "critical_blocked" {
  match  = { risk = "critical" }
  action = "deny"
}

agent_profile "default" {
  model {
    primary {
      provider = "claude"
      id       = "model-large-2"
    }
    fallback {
      provider = "claude"
      id       = "model-medium-2"
    }
  }
  tools                    = ["kv.*", "readme.*"]
  slash_commands           = ["summarize", "reset"]
  max_turns                = 60 * 2
  max_cost_usd             = 2.50
  max_wall_clock_s         = 1800
  max_depth                = 2
  max_concurrent_subagents = 4
}

agent_profile "auditor" {
  model {
    primary {
      provider = "claude"
      id       = "model-small-1"
    }
  }
  tools     = ["kv.get"]
  max_turns = 25
  max_depth = 0
}

hook "plan-ready" {
  provider = "kv"
  mode     = "veto"
}

hook "post-apply" {
  provider = "kv"
  mode     = "observe"
}

settings {
  default_frontend = "web"
  log_level        = "debug"
  telemetry        = true

  retry {
    base_delay_ms  = 250
    backoff_factor = 1.5
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
    resource_attrs     = { team = "platform" }
  }

  event_bus {
    subscribe_queue_bound = 256
  }
}
