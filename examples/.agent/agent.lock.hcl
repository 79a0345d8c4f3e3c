# This file is maintained by "agent lock". Do not edit it by hand:
# check-config verifies every provider against it.

lock_file_version = 1

provider "echo" {
  source      = "builtin/echo"
  version     = "0.1.0"
  resolved_at = "2026-12-03T08:38:24Z"
  checksums = {
    "darwin_amd64"  = "sha256:53d5695b5e57baca1395f49b0ff154c149f0c6a72da609109db8b87ddf2c11d6"
    "darwin_arm64"  = "sha256:53d5695b5e57baca1395f49b0ff154c149f0c6a72da609109db8b87ddf2c11d6"
    "linux_amd64"   = "sha256:53d5695b5e57baca1395f49b0ff154c149f0c6a72da609109db8b87ddf2c11d6"
    "linux_arm64"   = "sha256:53d5695b5e57baca1395f49b0ff154c149f0c6a72da609109db8b87ddf2c11d6"
    "windows_amd64" = "sha256:53d5695b5e57baca1395f49b0ff154c149f0c6a72da609109db8b87ddf2c11d6"
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
  resolved_at = "2026-12-03T08:38:24Z"
  checksums = {
    "darwin_amd64"  = "sha256:0dc1592e7edc56e96c92ea0bb3c615e34ab07d1469c91d41c9fe688bb32028a9"
    "darwin_arm64"  = "sha256:0dc1592e7edc56e96c92ea0bb3c615e34ab07d1469c91d41c9fe688bb32028a9"
    "linux_amd64"   = "sha256:0dc1592e7edc56e96c92ea0bb3c615e34ab07d1469c91d41c9fe688bb32028a9"
    "linux_arm64"   = "sha256:0dc1592e7edc56e96c92ea0bb3c615e34ab07d1469c91d41c9fe688bb32028a9"
    "windows_amd64" = "sha256:0dc1592e7edc56e96c92ea0bb3c615e34ab07d1469c91d41c9fe688bb32028a9"
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
