# This file is maintained by "agent lock". Do not edit it by hand:
# check-config verifies every provider against it.

lock_file_version = 1

provider "echo" {
  source      = "builtin/echo"
  version     = "0.1.0"
  resolved_at = "2026-11-30T14:37:05Z"
  checksums = {
    "darwin_amd64"  = "sha256:a365f335faaa4756112de667679e0609dc348f364ab1b386051e2deac9c715b2"
    "darwin_arm64"  = "sha256:a365f335faaa4756112de667679e0609dc348f364ab1b386051e2deac9c715b2"
    "linux_amd64"   = "sha256:a365f335faaa4756112de667679e0609dc348f364ab1b386051e2deac9c715b2"
    "linux_arm64"   = "sha256:a365f335faaa4756112de667679e0609dc348f364ab1b386051e2deac9c715b2"
    "windows_amd64" = "sha256:a365f335faaa4756112de667679e0609dc348f364ab1b386051e2deac9c715b2"
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
  resolved_at = "2026-11-30T14:37:05Z"
  checksums = {
    "darwin_amd64"  = "sha256:9adb33a8965d45684eed8c0d8cb44932b4fef22c21113ece3d52e5f795aa1702"
    "darwin_arm64"  = "sha256:9adb33a8965d45684eed8c0d8cb44932b4fef22c21113ece3d52e5f795aa1702"
    "linux_amd64"   = "sha256:9adb33a8965d45684eed8c0d8cb44932b4fef22c21113ece3d52e5f795aa1702"
    "linux_arm64"   = "sha256:9adb33a8965d45684eed8c0d8cb44932b4fef22c21113ece3d52e5f795aa1702"
    "windows_amd64" = "sha256:9adb33a8965d45684eed8c0d8cb44932b4fef22c21113ece3d52e5f795aa1702"
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
