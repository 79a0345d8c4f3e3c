required_providers {
  readme = { source = "../../_plugins/ctx", version = "0.3.0" }
}

provider "readme" {
  allow_read = ["."]
}

agent_profile "default" {
  model {
    primary {
      provider = "readme"
      id       = "not-a-model"
    }
  }
  model {
    primary {
      provider = "readme"
      id       = "again"
    }
  }
  max_turns        = -1
  max_wall_clock_s = 2.5
}

agent_profile "no_primary" {
  model {
    fallback {
      provider = "readme"
      id       = "x"
    }
  }
}

agent_profile "two_primaries" {
  model {
    primary {
      provider = "readme"
      id       = "a"
    }
    primary {
      provider = "readme"
      id       = "b"
    }
  }
}

agent_profile "wrong_category" {
  model {
    primary {
      provider = "readme"
      id       = "not-a-model"
    }
  }
}

hook "context-assemble" {
  provider = "readme"
  mode     = "observe"
}

hook "post-aply" {
  provider = "readme"
  mode     = "observe"
}

hook "session-end" "extra" {
  provider = "readme"
  mode     = "observe"
}

settings {
  telemetry = true
  retry {
    base_delay_ms = 100
  }
  observability {
    endpoint = "collector:4317"
  }
  observability {
    endpoint = "again:4317"
  }
}
