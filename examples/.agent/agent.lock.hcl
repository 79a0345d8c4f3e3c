# This file is maintained by "agent lock". Do not edit it by hand:
# check-config verifies every provider against it.

lock_file_version = 1

provider "echo" {
  source      = "builtin/echo"
  version     = "0.1.0"
  resolved_at = "2026-12-03T08:37:33Z"
  checksums = {
    "darwin_amd64"  = "sha256:5f4275cc800373c568d0f9e4c1f1348d1dabb9febea7ea005ef488e232af417f"
    "darwin_arm64"  = "sha256:5f4275cc800373c568d0f9e4c1f1348d1dabb9febea7ea005ef488e232af417f"
    "linux_amd64"   = "sha256:5f4275cc800373c568d0f9e4c1f1348d1dabb9febea7ea005ef488e232af417f"
    "linux_arm64"   = "sha256:5f4275cc800373c568d0f9e4c1f1348d1dabb9febea7ea005ef488e232af417f"
    "windows_amd64" = "sha256:5f4275cc800373c568d0f9e4c1f1348d1dabb9febea7ea005ef488e232af417f"
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
  resolved_at = "2026-12-03T08:37:33Z"
  checksums = {
    "darwin_amd64"  = "sha256:69e63c3ecbaa683e06ea2aaae91185ba24d69b3ff04f05fd81a408b8db51b5ff"
    "darwin_arm64"  = "sha256:69e63c3ecbaa683e06ea2aaae91185ba24d69b3ff04f05fd81a408b8db51b5ff"
    "linux_amd64"   = "sha256:69e63c3ecbaa683e06ea2aaae91185ba24d69b3ff04f05fd81a408b8db51b5ff"
    "linux_arm64"   = "sha256:69e63c3ecbaa683e06ea2aaae91185ba24d69b3ff04f05fd81a408b8db51b5ff"
    "windows_amd64" = "sha256:69e63c3ecbaa683e06ea2aaae91185ba24d69b3ff04f05fd81a408b8db51b5ff"
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
