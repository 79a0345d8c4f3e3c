required_providers {
  claude = { source = "github.com/example-org/provider-claude", version = "~> 2.3" }
}

provider "claude" {
  api_key = env("CLAUDE_API_KEY")
}
