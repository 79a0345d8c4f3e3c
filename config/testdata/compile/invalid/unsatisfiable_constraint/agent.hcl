required_providers {
  a = { source = "github.com/acme/a", version = ">= 2.0.0, < 1.0.0" }
  b = { source = "github.com/acme/b", version = "=> 1.0" }
  c = { source = "github.com/acme/c", version = "~> 1.2, != 1.2.0, < 1.2.1" }
  readme = { source = "../../_plugins/ctx", version = "~> 0.4" }
}
