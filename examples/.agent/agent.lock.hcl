# This file is maintained by "agent lock". Do not edit it by hand:
# check-config verifies every provider against it.

lock_file_version = 1

provider "echo" {
  source      = "builtin/echo"
  version     = "0.1.0"
  resolved_at = "2026-12-02T02:23:13Z"
  checksums = {
    "darwin_amd64"  = "sha256:ec8ac75a113a5e08bee8405ebd16452f47e2547e0151a77fed6a6ade973acb1b"
    "darwin_arm64"  = "sha256:ec8ac75a113a5e08bee8405ebd16452f47e2547e0151a77fed6a6ade973acb1b"
    "linux_amd64"   = "sha256:ec8ac75a113a5e08bee8405ebd16452f47e2547e0151a77fed6a6ade973acb1b"
    "linux_arm64"   = "sha256:ec8ac75a113a5e08bee8405ebd16452f47e2547e0151a77fed6a6ade973acb1b"
    "windows_amd64" = "sha256:ec8ac75a113a5e08bee8405ebd16452f47e2547e0151a77fed6a6ade973acb1b"
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
  resolved_at = "2026-12-02T02:23:13Z"
  checksums = {
    "darwin_amd64"  = "sha256:e94ef2b27d069ed834c19c785dd0a6c806ca8d618500084af4b392ed9a8bde83"
    "darwin_arm64"  = "sha256:e94ef2b27d069ed834c19c785dd0a6c806ca8d618500084af4b392ed9a8bde83"
    "linux_amd64"   = "sha256:e94ef2b27d069ed834c19c785dd0a6c806ca8d618500084af4b392ed9a8bde83"
    "linux_arm64"   = "sha256:e94ef2b27d069ed834c19c785dd0a6c806ca8d618500084af4b392ed9a8bde83"
    "windows_amd64" = "sha256:e94ef2b27d069ed834c19c785dd0a6c806ca8d618500084af4b392ed9a8bde83"
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
