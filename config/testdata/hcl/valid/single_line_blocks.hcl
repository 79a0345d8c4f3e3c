# A single-line block may hold exactly one argument.
agent_profile "tiny" {
  model {
    primary { provider = "claude" }
  }
  max_turns = 5
}

settings {
  event_bus { subscribe_queue_bound = 256 }
  retry {}
}

provider "grep" {}
provider "fs" { roots = ["."] }
