# This file is maintained by "agent lock". Do not edit it by hand:
# check-config verifies every provider against it.

lock_file_version = 1

provider "echo" {
  source      = "builtin/echo"
  version     = "0.1.0"
  resolved_at = "2026-11-30T12:53:14Z"
  checksums = {
    "darwin_amd64"  = "sha256:7329e418f299606e78bfd5ebed2e645bba932530d3df4c2c9546301c414f5fbd"
    "darwin_arm64"  = "sha256:7329e418f299606e78bfd5ebed2e645bba932530d3df4c2c9546301c414f5fbd"
    "linux_amd64"   = "sha256:7329e418f299606e78bfd5ebed2e645bba932530d3df4c2c9546301c414f5fbd"
    "linux_arm64"   = "sha256:7329e418f299606e78bfd5ebed2e645bba932530d3df4c2c9546301c414f5fbd"
    "windows_amd64" = "sha256:7329e418f299606e78bfd5ebed2e645bba932530d3df4c2c9546301c414f5fbd"
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
  resolved_at = "2026-11-30T12:53:14Z"
  checksums = {
    "darwin_amd64"  = "sha256:b535c7b158115dc09ab07403c28c1ea0de493a580544011c82c2f7800ebe9651"
    "darwin_arm64"  = "sha256:b535c7b158115dc09ab07403c28c1ea0de493a580544011c82c2f7800ebe9651"
    "linux_amd64"   = "sha256:b535c7b158115dc09ab07403c28c1ea0de493a580544011c82c2f7800ebe9651"
    "linux_arm64"   = "sha256:b535c7b158115dc09ab07403c28c1ea0de493a580544011c82c2f7800ebe9651"
    "windows_amd64" = "sha256:b535c7b158115dc09ab07403c28c1ea0de493a580544011c82c2f7800ebe9651"
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
