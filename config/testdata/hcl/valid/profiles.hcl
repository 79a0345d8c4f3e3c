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
    fallback {
      provider = "local-llm"
      id       = "llama-70b"
    }
  }
  tools                    = ["fs.*", "grep.search", "subagents.spawn"]
  slash_commands           = ["summarize", "reset"]
  max_turns                = 120
  max_cost_usd             = 2.50
  max_wall_clock_s         = 1800
  max_depth                = 2
  max_concurrent_subagents = 4
}

agent_profile "researcher" {
  model {
    primary {
      provider = "claude"
      id       = "model-medium-2"
    }
  }
  tools = [
    "web.fetch",
    "web.search",
    "fs.read_file",
  ]
  max_turns = 60
  max_depth = 0
}

agent_profile "empty" {}
