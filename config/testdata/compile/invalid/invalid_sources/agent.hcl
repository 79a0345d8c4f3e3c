required_providers {
  a = { source = "https://github.com/acme/provider-a.git", version = "1.0.0" }
  b = { source = "builtin:echo", version = "~> 0.1" }
  c = { source = "github.com/acme", version = "1.0.0" }
  d = { source = "bitbucket.org/acme/d", version = "1.0.0" }
  e = { source = "builtin/nope", version = "~> 0.1" }
  f = { source = "./plugins/missing", version = "1.0.0" }
  g = { source = "github.com/acme/provider-g", version = "1.0.0" }
  h = { source = "builtin/echo", version = "~> 0.9", alias = "echo2" }
  i = { sourse = "builtin/echo", version = "~> 0.1" }
}
