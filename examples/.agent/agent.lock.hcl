# This file is maintained by "agent lock". Do not edit it by hand:
# check-config verifies every provider against it.

lock_file_version = 1

provider "echo" {
  source      = "builtin/echo"
  version     = "0.1.0"
  resolved_at = "2026-12-02T08:26:40Z"
  checksums = {
    "darwin_amd64"  = "sha256:1eb5534cb2ca2386a9329d927faab04b1fc2fdb98fbe7c3769705a0e505b855e"
    "darwin_arm64"  = "sha256:1eb5534cb2ca2386a9329d927faab04b1fc2fdb98fbe7c3769705a0e505b855e"
    "linux_amd64"   = "sha256:1eb5534cb2ca2386a9329d927faab04b1fc2fdb98fbe7c3769705a0e505b855e"
    "linux_arm64"   = "sha256:1eb5534cb2ca2386a9329d927faab04b1fc2fdb98fbe7c3769705a0e505b855e"
    "windows_amd64" = "sha256:1eb5534cb2ca2386a9329d927faab04b1fc2fdb98fbe7c3769705a0e505b855e"
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
  resolved_at = "2026-12-02T08:26:40Z"
  checksums = {
    "darwin_amd64"  = "sha256:c1a2ecd2d4c43f0128ad8e8ad7d770b285f09de1c14ff687b9b7b481fd07f663"
    "darwin_arm64"  = "sha256:c1a2ecd2d4c43f0128ad8e8ad7d770b285f09de1c14ff687b9b7b481fd07f663"
    "linux_amd64"   = "sha256:c1a2ecd2d4c43f0128ad8e8ad7d770b285f09de1c14ff687b9b7b481fd07f663"
    "linux_arm64"   = "sha256:c1a2ecd2d4c43f0128ad8e8ad7d770b285f09de1c14ff687b9b7b481fd07f663"
    "windows_amd64" = "sha256:c1a2ecd2d4c43f0128ad8e8ad7d770b285f09de1c14ff687b9b7b481fd07f663"
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
