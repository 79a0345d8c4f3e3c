lock_file_version = 1

provider "claude" {
  source      = "github.com/example-org/provider-claude"
  version     = "2.3.1"
  resolved_at = "2026-05-02T10:30:00Z"
  checksums = {
    "darwin_arm64" = "sha256:1111111111111111111111111111111111111111111111111111111111111111"
    "linux_arm64"  = "sha256:3333333333333333333333333333333333333333333333333333333333333333"
  }
  envelope = {
    env   = []
    run   = []
    read  = []
    write = []
    net   = []
  }
  config_schema = [
    {
      name        = "api_key"
      type        = "string"
      required    = true
      sensitive   = true
      description = "API key."
    },
  ]
}
