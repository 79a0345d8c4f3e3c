required_providers {
  claude         = { source = "github.com/example-org/provider-claude", version = "~> 2.1" }
  fs             = { source = "gitlab.com/tools-team/provider-fs", version = "~> 0.9" }
  readme-reader  = { source = "github.com/example-org/provider-readme", version = "1.0.0" }
  search-index   = { source = "github.com/example-org/provider-search", version = ">= 0.2" }
}

provider "claude" {
  api_key      = env("CLAUDE_API_KEY")
  organization = env("CLAUDE_ORG")
  base_url     = "https://llm.internal.example/v1"
  timeout_s    = 30
  retry_on     = ["overloaded", "rate_limited"]
  headers = {
    "X-Team"    = "platform"
    "X-Project" = "agent"
  }
}

provider "fs" {
  roots     = [".", "../shared-docs"]
  read_only = false
  ignore    = ["**/node_modules/**", "**/.git/**"]
}

provider "readme-reader" { # a context provider: token_budget is its cap
  files        = ["README.md", "docs/**/README.md"]
  token_budget = 3000
}

provider "search-index" {
  index = {
    path     = ".agent/index"
    shards   = 4
    analyzer = { language = "en", stemming = true }
  }
  token_budget = 1500
}
