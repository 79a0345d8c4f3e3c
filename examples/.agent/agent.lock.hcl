# This file is maintained by "agent lock". Do not edit it by hand:
# check-config verifies every provider against it.

lock_file_version = 1

provider "echo" {
  source      = "builtin/echo"
  version     = "0.1.0"
  resolved_at = "2026-12-02T06:08:19Z"
  checksums = {
    "darwin_amd64"  = "sha256:dff71bbfe738b2e938508ac447b1e1f13b525503867ef5b1de330c5ce2c8e911"
    "darwin_arm64"  = "sha256:dff71bbfe738b2e938508ac447b1e1f13b525503867ef5b1de330c5ce2c8e911"
    "linux_amd64"   = "sha256:dff71bbfe738b2e938508ac447b1e1f13b525503867ef5b1de330c5ce2c8e911"
    "linux_arm64"   = "sha256:dff71bbfe738b2e938508ac447b1e1f13b525503867ef5b1de330c5ce2c8e911"
    "windows_amd64" = "sha256:dff71bbfe738b2e938508ac447b1e1f13b525503867ef5b1de330c5ce2c8e911"
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
  resolved_at = "2026-12-02T06:08:19Z"
  checksums = {
    "darwin_amd64"  = "sha256:18b1d2e6fbdd14f4510f0b467ecf29d17edfed64314da8d5e05d45a7aa8f1809"
    "darwin_arm64"  = "sha256:18b1d2e6fbdd14f4510f0b467ecf29d17edfed64314da8d5e05d45a7aa8f1809"
    "linux_amd64"   = "sha256:18b1d2e6fbdd14f4510f0b467ecf29d17edfed64314da8d5e05d45a7aa8f1809"
    "linux_arm64"   = "sha256:18b1d2e6fbdd14f4510f0b467ecf29d17edfed64314da8d5e05d45a7aa8f1809"
    "windows_amd64" = "sha256:18b1d2e6fbdd14f4510f0b467ecf29d17edfed64314da8d5e05d45a7aa8f1809"
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
