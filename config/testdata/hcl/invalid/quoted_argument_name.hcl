required_providers {
  "claude" = { source = "github.com/example-org/provider-claude", version = "~> 2.1" } # ERROR: Invalid argument name
}
