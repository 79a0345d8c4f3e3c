lock_file_version = 1

provider "claude" {
  source      = "github.com/example-org/provider-claude"
  version     = "2.3.1"
  resolved_at = "2026-05-02T10:30:00Z"
  checksums = {
    "linux_amd64" = "sha256:2222222222222222222222222222222222222222222222222222222222222222"
  }
  config_schema = [
    {
      name         = "api_key"
      type         = "string"
      required     = false
      sensitive    = true
      description  = "API key."
      default_json = "\"sk-default\""
    },
    {
      name = "headers"
      type = "object"
    },
    {
      name = "region"
      type = "enum"
    },
    {
      name         = "models"
      type         = "list(string)"
      default_json = "[\"a\", 2]"
    },
    {
      name         = "extra"
      type         = "map(string)"
      default_json = "{not json"
    },
  ]
}
