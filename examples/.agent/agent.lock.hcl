# This file is maintained by "agent lock". Do not edit it by hand:
# check-config verifies every provider against it.

lock_file_version = 1

provider "echo" {
  source      = "builtin/echo"
  version     = "0.1.0"
  resolved_at = "2026-12-01T23:37:16Z"
  checksums = {
    "darwin_amd64"  = "sha256:c84895b7156c9ee230db59e481ac5b6700cafdda674246c10c18efad713d0d37"
    "darwin_arm64"  = "sha256:c84895b7156c9ee230db59e481ac5b6700cafdda674246c10c18efad713d0d37"
    "linux_amd64"   = "sha256:c84895b7156c9ee230db59e481ac5b6700cafdda674246c10c18efad713d0d37"
    "linux_arm64"   = "sha256:c84895b7156c9ee230db59e481ac5b6700cafdda674246c10c18efad713d0d37"
    "windows_amd64" = "sha256:c84895b7156c9ee230db59e481ac5b6700cafdda674246c10c18efad713d0d37"
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
  resolved_at = "2026-12-01T23:37:16Z"
  checksums = {
    "darwin_amd64"  = "sha256:bce6ce166483138c75889babe0452204f23f3f951d818d438e8e4878eb944b8a"
    "darwin_arm64"  = "sha256:bce6ce166483138c75889babe0452204f23f3f951d818d438e8e4878eb944b8a"
    "linux_amd64"   = "sha256:bce6ce166483138c75889babe0452204f23f3f951d818d438e8e4878eb944b8a"
    "linux_arm64"   = "sha256:bce6ce166483138c75889babe0452204f23f3f951d818d438e8e4878eb944b8a"
    "windows_amd64" = "sha256:bce6ce166483138c75889babe0452204f23f3f951d818d438e8e4878eb944b8a"
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
