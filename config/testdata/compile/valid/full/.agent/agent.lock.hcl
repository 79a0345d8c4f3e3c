# This file is maintained by "agent lock". Do not edit it by hand:
# check-config verifies every provider against it.

lock_file_version = 1

provider "claude" {
  source      = "github.com/example-org/provider-claude"
  version     = "2.3.1"
  resolved_at = "2026-05-02T10:30:00Z"
  checksums = {
    "darwin_arm64" = "sha256:1111111111111111111111111111111111111111111111111111111111111111"
    "linux_amd64"  = "sha256:2222222222222222222222222222222222222222222222222222222222222222"
    "linux_arm64"  = "sha256:3333333333333333333333333333333333333333333333333333333333333333"
  }
  envelope = {
    env   = []
    run   = []
    read  = []
    write = []
    net   = ["api.claude.example:443"]
  }
  config_schema = [
    {
      name        = "api_key"
      type        = "string"
      required    = true
      sensitive   = true
      description = "API key."
    },
    {
      name        = "base_url"
      type        = "string"
      required    = false
      sensitive   = false
      description = "Override of the API's base URL."
    },
  ]
}

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

provider "readme" {
  source      = "../../_plugins/ctx"
  version     = "0.3.0"
  resolved_at = "2026-01-01T00:00:00Z"
  checksums = {
    "darwin_amd64"  = "sha256:beffcc1810360da3e1c20362bbe24a3d46e9798e2bd057709fa143ea23538824"
    "darwin_arm64"  = "sha256:beffcc1810360da3e1c20362bbe24a3d46e9798e2bd057709fa143ea23538824"
    "linux_amd64"   = "sha256:beffcc1810360da3e1c20362bbe24a3d46e9798e2bd057709fa143ea23538824"
    "linux_arm64"   = "sha256:beffcc1810360da3e1c20362bbe24a3d46e9798e2bd057709fa143ea23538824"
    "windows_amd64" = "sha256:beffcc1810360da3e1c20362bbe24a3d46e9798e2bd057709fa143ea23538824"
  }
  envelope = {
    env   = []
    run   = []
    read  = ["."]
    write = []
    net   = []
  }
  config_schema = [
    {
      name         = "files"
      type         = "list(string)"
      required     = false
      sensitive    = false
      description  = ""
      default_json = "[\"README.md\"]"
    },
    {
      name        = "token_budget"
      type        = "number"
      required    = false
      sensitive   = false
      description = "Token cap of this context provider."
    },
  ]
}
