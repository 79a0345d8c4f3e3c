# This file is maintained by "agent lock". Do not edit it by hand:
# check-config verifies every provider against it.

lock_file_version = 1

provider "echo" {
  source      = "builtin/echo"
  version     = "0.1.0"
  resolved_at = "2026-11-30T12:25:19Z"
  checksums = {
    "darwin_amd64"  = "sha256:0d8efb525bf121f43c86a120d684ac70e8892658e3ff15cbff5ff730d0dfebf3"
    "darwin_arm64"  = "sha256:0d8efb525bf121f43c86a120d684ac70e8892658e3ff15cbff5ff730d0dfebf3"
    "linux_amd64"   = "sha256:0d8efb525bf121f43c86a120d684ac70e8892658e3ff15cbff5ff730d0dfebf3"
    "linux_arm64"   = "sha256:0d8efb525bf121f43c86a120d684ac70e8892658e3ff15cbff5ff730d0dfebf3"
    "windows_amd64" = "sha256:0d8efb525bf121f43c86a120d684ac70e8892658e3ff15cbff5ff730d0dfebf3"
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
  resolved_at = "2026-11-30T12:25:19Z"
  checksums = {
    "darwin_amd64"  = "sha256:3baa54262bdf780a6268ea2802fc41c5e3848d7642dd6b03dfa3e174fb48854f"
    "darwin_arm64"  = "sha256:3baa54262bdf780a6268ea2802fc41c5e3848d7642dd6b03dfa3e174fb48854f"
    "linux_amd64"   = "sha256:3baa54262bdf780a6268ea2802fc41c5e3848d7642dd6b03dfa3e174fb48854f"
    "linux_arm64"   = "sha256:3baa54262bdf780a6268ea2802fc41c5e3848d7642dd6b03dfa3e174fb48854f"
    "windows_amd64" = "sha256:3baa54262bdf780a6268ea2802fc41c5e3848d7642dd6b03dfa3e174fb48854f"
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
}
