# This file is maintained by "agent lock". Do not edit it by hand:
# check-config verifies every provider against it.

lock_file_version = 1

provider "echo" {
  source      = "builtin/echo"
  version     = "0.1.0"
  resolved_at = "2026-11-30T13:56:09Z"
  checksums = {
    "darwin_amd64"  = "sha256:3d6bcb0a8d6501c40741de9540150d8d38016b68636bb73fa3313d878fca2be0"
    "darwin_arm64"  = "sha256:3d6bcb0a8d6501c40741de9540150d8d38016b68636bb73fa3313d878fca2be0"
    "linux_amd64"   = "sha256:3d6bcb0a8d6501c40741de9540150d8d38016b68636bb73fa3313d878fca2be0"
    "linux_arm64"   = "sha256:3d6bcb0a8d6501c40741de9540150d8d38016b68636bb73fa3313d878fca2be0"
    "windows_amd64" = "sha256:3d6bcb0a8d6501c40741de9540150d8d38016b68636bb73fa3313d878fca2be0"
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
  resolved_at = "2026-11-30T13:56:09Z"
  checksums = {
    "darwin_amd64"  = "sha256:468a25c0729ec43d7c14401aa2ae8cb8dc4bc26a161a2908d61cb8ac798a0fbe"
    "darwin_arm64"  = "sha256:468a25c0729ec43d7c14401aa2ae8cb8dc4bc26a161a2908d61cb8ac798a0fbe"
    "linux_amd64"   = "sha256:468a25c0729ec43d7c14401aa2ae8cb8dc4bc26a161a2908d61cb8ac798a0fbe"
    "linux_arm64"   = "sha256:468a25c0729ec43d7c14401aa2ae8cb8dc4bc26a161a2908d61cb8ac798a0fbe"
    "windows_amd64" = "sha256:468a25c0729ec43d7c14401aa2ae8cb8dc4bc26a161a2908d61cb8ac798a0fbe"
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
