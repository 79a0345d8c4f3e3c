# This file is maintained by "agent lock". Do not edit it by hand:
# check-config verifies every provider against it.

lock_file_version = 1

provider "kv" {
  source      = "../../_plugins/kv"
  version     = "1.4.2"
  resolved_at = "2026-01-01T00:00:00Z"
  checksums = {
    "darwin_amd64"  = "sha256:79ce3807db5a440cefeff4fdb28c9d7738497121b4e2ab15c75554748a8338bc"
    "darwin_arm64"  = "sha256:79ce3807db5a440cefeff4fdb28c9d7738497121b4e2ab15c75554748a8338bc"
    "linux_amd64"   = "sha256:79ce3807db5a440cefeff4fdb28c9d7738497121b4e2ab15c75554748a8338bc"
    "linux_arm64"   = "sha256:79ce3807db5a440cefeff4fdb28c9d7738497121b4e2ab15c75554748a8338bc"
    "windows_amd64" = "sha256:79ce3807db5a440cefeff4fdb28c9d7738497121b4e2ab15c75554748a8338bc"
  }
  envelope = {
    env   = ["KV_REGION"]
    run   = []
    read  = ["./data"]
    write = []
    net   = ["kv.example:443"]
  }
  config_schema = [
    {
      name        = "endpoint"
      type        = "string"
      required    = true
      sensitive   = false
      description = "Base URL of the store."
    },
    {
      name        = "token"
      type        = "string"
      required    = false
      sensitive   = true
      description = "API token."
    },
    {
      name         = "timeout_s"
      type         = "number"
      required     = false
      sensitive    = false
      description  = ""
      default_json = "30"
    },
    {
      name        = "retries"
      type        = "number"
      required    = false
      sensitive   = false
      description = ""
    },
    {
      name        = "verbose"
      type        = "bool"
      required    = false
      sensitive   = false
      description = ""
    },
    {
      name        = "tags"
      type        = "list(string)"
      required    = false
      sensitive   = false
      description = ""
    },
    {
      name        = "ports"
      type        = "list(number)"
      required    = false
      sensitive   = false
      description = ""
    },
    {
      name        = "labels"
      type        = "map(string)"
      required    = false
      sensitive   = false
      description = ""
    },
    {
      name        = "tls"
      type        = "object"
      required    = false
      sensitive   = false
      description = ""
      attributes = [
        {
          name         = "verify"
          type         = "bool"
          required     = false
          sensitive    = false
          description  = ""
          default_json = "true"
        },
        {
          name        = "client_key"
          type        = "string"
          required    = false
          sensitive   = true
          description = ""
        },
        {
          name        = "server_name"
          type        = "string"
          required    = true
          sensitive   = false
          description = ""
        },
      ]
    },
  ]
  tools = [
    {
      name = "get"
      kind = "data_source"
      risk = "read_only"
    },
    {
      name = "put"
      kind = "resource"
      risk = "moderate"
    },
    {
      name = "drop"
      kind = "resource"
      risk = "critical"
    },
  ]
}
