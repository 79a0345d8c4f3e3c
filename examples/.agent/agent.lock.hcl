# This file is maintained by "agent lock". Do not edit it by hand:
# check-config verifies every provider against it.

lock_file_version = 1

provider "echo" {
  source      = "builtin/echo"
  version     = "0.1.0"
  resolved_at = "2026-11-30T14:16:03Z"
  checksums = {
    "darwin_amd64"  = "sha256:213cf17ef2f81ae3f25d5c255da9af2655d8c48b26d72e07bfbd7a2e7d77dd2e"
    "darwin_arm64"  = "sha256:213cf17ef2f81ae3f25d5c255da9af2655d8c48b26d72e07bfbd7a2e7d77dd2e"
    "linux_amd64"   = "sha256:213cf17ef2f81ae3f25d5c255da9af2655d8c48b26d72e07bfbd7a2e7d77dd2e"
    "linux_arm64"   = "sha256:213cf17ef2f81ae3f25d5c255da9af2655d8c48b26d72e07bfbd7a2e7d77dd2e"
    "windows_amd64" = "sha256:213cf17ef2f81ae3f25d5c255da9af2655d8c48b26d72e07bfbd7a2e7d77dd2e"
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
  resolved_at = "2026-11-30T14:16:03Z"
  checksums = {
    "darwin_amd64"  = "sha256:1c8c74fdfcdc618f9fdf9c848a61d68b8f0322184e9bfb2e725f66ed3101e95e"
    "darwin_arm64"  = "sha256:1c8c74fdfcdc618f9fdf9c848a61d68b8f0322184e9bfb2e725f66ed3101e95e"
    "linux_amd64"   = "sha256:1c8c74fdfcdc618f9fdf9c848a61d68b8f0322184e9bfb2e725f66ed3101e95e"
    "linux_arm64"   = "sha256:1c8c74fdfcdc618f9fdf9c848a61d68b8f0322184e9bfb2e725f66ed3101e95e"
    "windows_amd64" = "sha256:1c8c74fdfcdc618f9fdf9c848a61d68b8f0322184e9bfb2e725f66ed3101e95e"
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
