# This file is maintained by "agent lock". Do not edit it by hand:
# check-config verifies every provider against it.

lock_file_version = 1

provider "echo" {
  source      = "builtin/echo"
  version     = "0.1.0"
  resolved_at = "2026-12-02T12:16:26Z"
  checksums = {
    "darwin_amd64"  = "sha256:b7289ac0518cfda2c12f263604f8eabeec813ac0d0a7b844205883d1f51b2591"
    "darwin_arm64"  = "sha256:b7289ac0518cfda2c12f263604f8eabeec813ac0d0a7b844205883d1f51b2591"
    "linux_amd64"   = "sha256:b7289ac0518cfda2c12f263604f8eabeec813ac0d0a7b844205883d1f51b2591"
    "linux_arm64"   = "sha256:b7289ac0518cfda2c12f263604f8eabeec813ac0d0a7b844205883d1f51b2591"
    "windows_amd64" = "sha256:b7289ac0518cfda2c12f263604f8eabeec813ac0d0a7b844205883d1f51b2591"
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
  resolved_at = "2026-12-02T12:16:26Z"
  checksums = {
    "darwin_amd64"  = "sha256:d8cfaffbc7406de966598a9c20887bcb4ca5811216cc03f8e2765623386e61e7"
    "darwin_arm64"  = "sha256:d8cfaffbc7406de966598a9c20887bcb4ca5811216cc03f8e2765623386e61e7"
    "linux_amd64"   = "sha256:d8cfaffbc7406de966598a9c20887bcb4ca5811216cc03f8e2765623386e61e7"
    "linux_arm64"   = "sha256:d8cfaffbc7406de966598a9c20887bcb4ca5811216cc03f8e2765623386e61e7"
    "windows_amd64" = "sha256:d8cfaffbc7406de966598a9c20887bcb4ca5811216cc03f8e2765623386e61e7"
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
