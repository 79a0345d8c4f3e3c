required_providers {
  md-reader  = { source = "github.com/example-org/provider-md-reader", version = "~> 0.3" }
  web-search = { source = "github.com/example-org/provider-web-search", version = "1.0.0" }
}

provider "md-reader" {
  files = ["docs/**/*.md"]
}

provider web-search {
  max-results = 10
}

agent_profile "pr-reviewer" {
  tools = ["md-reader.*", "web-search.query"]
}
