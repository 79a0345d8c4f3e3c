# This file is maintained by "agent lock". Do not edit it by hand:
# check-config verifies every provider against it.

lock_file_version = 1

provider "echo" {
  source      = "builtin/echo"
  version     = "0.1.0"
  resolved_at = "2026-12-02T02:33:33Z"
  checksums = {
    "darwin_amd64"  = "sha256:a2081fc18fdfd9ab4cd62f065905bced4a3f399c0e2fb25fcacccb2893146f80"
    "darwin_arm64"  = "sha256:a2081fc18fdfd9ab4cd62f065905bced4a3f399c0e2fb25fcacccb2893146f80"
    "linux_amd64"   = "sha256:a2081fc18fdfd9ab4cd62f065905bced4a3f399c0e2fb25fcacccb2893146f80"
    "linux_arm64"   = "sha256:a2081fc18fdfd9ab4cd62f065905bced4a3f399c0e2fb25fcacccb2893146f80"
    "windows_amd64" = "sha256:a2081fc18fdfd9ab4cd62f065905bced4a3f399c0e2fb25fcacccb2893146f80"
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
  resolved_at = "2026-12-02T02:33:33Z"
  checksums = {
    "darwin_amd64"  = "sha256:2f848e3fc94c3dbea8e8b170a6716f24f7ebdbe598726cbe9c791fb4311863bd"
    "darwin_arm64"  = "sha256:2f848e3fc94c3dbea8e8b170a6716f24f7ebdbe598726cbe9c791fb4311863bd"
    "linux_amd64"   = "sha256:2f848e3fc94c3dbea8e8b170a6716f24f7ebdbe598726cbe9c791fb4311863bd"
    "linux_arm64"   = "sha256:2f848e3fc94c3dbea8e8b170a6716f24f7ebdbe598726cbe9c791fb4311863bd"
    "windows_amd64" = "sha256:2f848e3fc94c3dbea8e8b170a6716f24f7ebdbe598726cbe9c791fb4311863bd"
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
