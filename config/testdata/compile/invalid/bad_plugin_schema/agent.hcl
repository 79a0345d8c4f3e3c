required_providers {
  bad    = { source = "../../_plugins/badschema", version = "1.0.0" }
  claude = { source = "github.com/example-org/provider-claude", version = "~> 2.3" }
}

provider "bad" {
  timeout_s = 5
}
