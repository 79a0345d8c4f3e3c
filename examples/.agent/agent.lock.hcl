# This file is maintained by "agent lock". Do not edit it by hand:
# check-config verifies every provider against it.

lock_file_version = 1

provider "echo" {
  source      = "builtin/echo"
  version     = "0.1.0"
  resolved_at = "2026-12-02T02:04:00Z"
  checksums = {
    "darwin_amd64"  = "sha256:2ae3ce9ce6d59d0e725158895bbddbb4eba2169744b4168b49cc70bc6639308c"
    "darwin_arm64"  = "sha256:2ae3ce9ce6d59d0e725158895bbddbb4eba2169744b4168b49cc70bc6639308c"
    "linux_amd64"   = "sha256:2ae3ce9ce6d59d0e725158895bbddbb4eba2169744b4168b49cc70bc6639308c"
    "linux_arm64"   = "sha256:2ae3ce9ce6d59d0e725158895bbddbb4eba2169744b4168b49cc70bc6639308c"
    "windows_amd64" = "sha256:2ae3ce9ce6d59d0e725158895bbddbb4eba2169744b4168b49cc70bc6639308c"
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
  resolved_at = "2026-12-02T02:59:11Z"
  checksums = {
    "darwin_amd64"  = "sha256:3484d8d53223b0908e0310ff1ffbb2d4908e7876138cafdfc6a1029edebbcdec"
    "darwin_arm64"  = "sha256:3484d8d53223b0908e0310ff1ffbb2d4908e7876138cafdfc6a1029edebbcdec"
    "linux_amd64"   = "sha256:3484d8d53223b0908e0310ff1ffbb2d4908e7876138cafdfc6a1029edebbcdec"
    "linux_arm64"   = "sha256:3484d8d53223b0908e0310ff1ffbb2d4908e7876138cafdfc6a1029edebbcdec"
    "windows_amd64" = "sha256:3484d8d53223b0908e0310ff1ffbb2d4908e7876138cafdfc6a1029edebbcdec"
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
