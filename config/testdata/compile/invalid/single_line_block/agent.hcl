required_providers {
  claude = { source = "github.com/example-org/provider-claude", version = "~> 2.1" }
}

agent_profile "default" {
  model {
    primary { provider = "claude", id = "model-large-2" }
  }
}
