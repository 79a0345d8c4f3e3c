# Errors in several places are all reported at once.
required_providers {
  fs = { source = "gitlab.com/tools-team/provider-fs" version = "~> 0.9" } # ERROR: Missing attribute separator
}

provider "fs" {
  roots = [".", "docs" "src"] # ERROR: Missing item separator
  roots = ["."] # ERROR: Attribute redefined
}

agent_profile "default" {
  model {
    primary { provider = "claude", id = "model-large-2" } # ERROR: Invalid single-argument block definition
  }
  max_turns = 10 20 # ERROR: Missing newline after argument
}

hook "post-apply" {
  provider = "journal"
  mode = = "observe" # ERROR: Invalid expression
}

settings {
  log_level = "\q" # ERROR: Invalid escape sequence
}
