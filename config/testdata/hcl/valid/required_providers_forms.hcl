// Every way to write a required_providers entry.
required_providers {
  claude = {
    source  = "github.com/example-org/provider-claude"
    version = ">= 2.1.0, < 3.0.0"
  }

  # One line, comma separated.
  fs = { source = "gitlab.com/tools-team/provider-fs", version = "~> 0.9" }

  # Colons instead of equals signs, and a trailing comma.
  grep = { source: "github.com/example-org/provider-grep", version: "0.4.2", }

  # Quoted keys inside the object (attribute names themselves are never quoted).
  md-reader = {
    "source"  = "github.com/example-org/provider-md-reader"
    "version" = "!= 0.3.1, >= 0.3.0"
  }

  # Newlines and commas mixed.
  memory = {
    source = "github.com/example-org/provider-memory",
    version = "~> 1.2.3"
  }
}
