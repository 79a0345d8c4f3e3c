# This file is maintained by "agent lock". Do not edit it by hand:
# check-config verifies every provider against it.

lock_file_version = 1

provider "echo" {
  source      = "builtin/echo"
  version     = "0.1.0"
  resolved_at = "2026-12-02T12:03:31Z"
  checksums = {
    "darwin_amd64"  = "sha256:d1975cfc55ca0c974e1bd8af0c277be63035ac494ed695b2653882fe6f4d1f5a"
    "darwin_arm64"  = "sha256:d1975cfc55ca0c974e1bd8af0c277be63035ac494ed695b2653882fe6f4d1f5a"
    "linux_amd64"   = "sha256:d1975cfc55ca0c974e1bd8af0c277be63035ac494ed695b2653882fe6f4d1f5a"
    "linux_arm64"   = "sha256:d1975cfc55ca0c974e1bd8af0c277be63035ac494ed695b2653882fe6f4d1f5a"
    "windows_amd64" = "sha256:d1975cfc55ca0c974e1bd8af0c277be63035ac494ed695b2653882fe6f4d1f5a"
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
  resolved_at = "2026-12-02T12:03:31Z"
  checksums = {
    "darwin_amd64"  = "sha256:92a424a161f083ce384f9b6472e1adffea9274308f8a8db4c314635da153b5e6"
    "darwin_arm64"  = "sha256:92a424a161f083ce384f9b6472e1adffea9274308f8a8db4c314635da153b5e6"
    "linux_amd64"   = "sha256:92a424a161f083ce384f9b6472e1adffea9274308f8a8db4c314635da153b5e6"
    "linux_arm64"   = "sha256:92a424a161f083ce384f9b6472e1adffea9274308f8a8db4c314635da153b5e6"
    "windows_amd64" = "sha256:92a424a161f083ce384f9b6472e1adffea9274308f8a8db4c314635da153b5e6"
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
