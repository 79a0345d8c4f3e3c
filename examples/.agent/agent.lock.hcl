# This file is maintained by "agent lock". Do not edit it by hand:
# check-config verifies every provider against it.

lock_file_version = 1

provider "echo" {
  source      = "builtin/echo"
  version     = "0.1.0"
  resolved_at = "2026-12-02T05:26:35Z"
  checksums = {
    "darwin_amd64"  = "sha256:99150fd5ad7c2b8f338d26f4ab46c9cab8911086c70f5703bce4df7c7639eef7"
    "darwin_arm64"  = "sha256:99150fd5ad7c2b8f338d26f4ab46c9cab8911086c70f5703bce4df7c7639eef7"
    "linux_amd64"   = "sha256:99150fd5ad7c2b8f338d26f4ab46c9cab8911086c70f5703bce4df7c7639eef7"
    "linux_arm64"   = "sha256:99150fd5ad7c2b8f338d26f4ab46c9cab8911086c70f5703bce4df7c7639eef7"
    "windows_amd64" = "sha256:99150fd5ad7c2b8f338d26f4ab46c9cab8911086c70f5703bce4df7c7639eef7"
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
      name         = "prefix"
      type         = "string"
      required     = false
      sensitive    = false
      description  = "Prepended to every echoed text."
      default_json = "\"\""
    },
  ]
}

provider "notes" {
  source      = "./plugins/notes"
  version     = "0.2.0"
  resolved_at = "2026-12-02T05:26:35Z"
  checksums = {
    "darwin_amd64"  = "sha256:e13b5df2e1b77bfed7240da47f8f4c3ea6a39d717b6269b16140fd5baf48784d"
    "darwin_arm64"  = "sha256:e13b5df2e1b77bfed7240da47f8f4c3ea6a39d717b6269b16140fd5baf48784d"
    "linux_amd64"   = "sha256:e13b5df2e1b77bfed7240da47f8f4c3ea6a39d717b6269b16140fd5baf48784d"
    "linux_arm64"   = "sha256:e13b5df2e1b77bfed7240da47f8f4c3ea6a39d717b6269b16140fd5baf48784d"
    "windows_amd64" = "sha256:e13b5df2e1b77bfed7240da47f8f4c3ea6a39d717b6269b16140fd5baf48784d"
  }
  envelope = {
    env   = []
    run   = []
    read  = ["./notes"]
    write = ["./notes"]
    net   = ["sync.notes.example:443"]
  }
  config_schema = [
    {
      name        = "root"
      type        = "string"
      required    = true
      sensitive   = false
      description = "The folder the notes live in, relative to the project."
    },
    {
      name        = "tags"
      type        = "list(string)"
      required    = false
      sensitive   = false
      description = "Tags added to every new note."
    },
    {
      name        = "api_token"
      type        = "string"
      required    = false
      sensitive   = true
      description = "Token of the sync service."
    },
    {
      name        = "sync"
      type        = "object"
      required    = false
      sensitive   = false
      description = "Background sync."
      attributes = [
        {
          name         = "enabled"
          type         = "bool"
          required     = false
          sensitive    = false
          description  = ""
          default_json = "false"
        },
        {
          name         = "interval_s"
          type         = "number"
          required     = false
          sensitive    = false
          description  = ""
          default_json = "300"
        },
      ]
    },
  ]
  tools = [
    {
      name = "read_note"
      kind = "data_source"
      risk = "read_only"
    },
    {
      name = "write_note"
      kind = "resource"
      risk = "low"
    },
    {
      name = "delete_note"
      kind = "resource"
      risk = "high"
    },
  ]
}
