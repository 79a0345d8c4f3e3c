# This file is maintained by "agent lock". Do not edit it by hand:
# check-config verifies every provider against it.

lock_file_version = 1

provider "echo" {
  source      = "builtin/echo"
  version     = "0.1.0"
  resolved_at = "2026-12-02T02:36:38Z"
  checksums = {
    "darwin_amd64"  = "sha256:e7cb3d60c18540cd402ef74010e1c46a9ee9f2c90a58c232111036951091c2f5"
    "darwin_arm64"  = "sha256:e7cb3d60c18540cd402ef74010e1c46a9ee9f2c90a58c232111036951091c2f5"
    "linux_amd64"   = "sha256:e7cb3d60c18540cd402ef74010e1c46a9ee9f2c90a58c232111036951091c2f5"
    "linux_arm64"   = "sha256:e7cb3d60c18540cd402ef74010e1c46a9ee9f2c90a58c232111036951091c2f5"
    "windows_amd64" = "sha256:e7cb3d60c18540cd402ef74010e1c46a9ee9f2c90a58c232111036951091c2f5"
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
  resolved_at = "2026-12-02T02:36:38Z"
  checksums = {
    "darwin_amd64"  = "sha256:a4762b3fa7f5cb997f5706f1470d245ce4c1debf661a1c39f6de9bb0931a9f79"
    "darwin_arm64"  = "sha256:a4762b3fa7f5cb997f5706f1470d245ce4c1debf661a1c39f6de9bb0931a9f79"
    "linux_amd64"   = "sha256:a4762b3fa7f5cb997f5706f1470d245ce4c1debf661a1c39f6de9bb0931a9f79"
    "linux_arm64"   = "sha256:a4762b3fa7f5cb997f5706f1470d245ce4c1debf661a1c39f6de9bb0931a9f79"
    "windows_amd64" = "sha256:a4762b3fa7f5cb997f5706f1470d245ce4c1debf661a1c39f6de9bb0931a9f79"
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
