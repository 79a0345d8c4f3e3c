# This file is maintained by "agent lock". Do not edit it by hand:
# check-config verifies every provider against it.

lock_file_version = 1

provider "echo" {
  source      = "builtin/echo"
  version     = "0.1.0"
  resolved_at = "2026-12-02T00:37:10Z"
  checksums = {
    "darwin_amd64"  = "sha256:2399ca3426aa427d960b312190960d2a74652ce5d8dbb103ac7e19bef4495b29"
    "darwin_arm64"  = "sha256:2399ca3426aa427d960b312190960d2a74652ce5d8dbb103ac7e19bef4495b29"
    "linux_amd64"   = "sha256:2399ca3426aa427d960b312190960d2a74652ce5d8dbb103ac7e19bef4495b29"
    "linux_arm64"   = "sha256:2399ca3426aa427d960b312190960d2a74652ce5d8dbb103ac7e19bef4495b29"
    "windows_amd64" = "sha256:2399ca3426aa427d960b312190960d2a74652ce5d8dbb103ac7e19bef4495b29"
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
  resolved_at = "2026-12-02T02:09:05Z"
  checksums = {
    "darwin_amd64"  = "sha256:d03e7a95c31622d71cfead1785eb81f244b72916ffe4fbc55193f89ce720af23"
    "darwin_arm64"  = "sha256:d03e7a95c31622d71cfead1785eb81f244b72916ffe4fbc55193f89ce720af23"
    "linux_amd64"   = "sha256:d03e7a95c31622d71cfead1785eb81f244b72916ffe4fbc55193f89ce720af23"
    "linux_arm64"   = "sha256:d03e7a95c31622d71cfead1785eb81f244b72916ffe4fbc55193f89ce720af23"
    "windows_amd64" = "sha256:d03e7a95c31622d71cfead1785eb81f244b72916ffe4fbc55193f89ce720af23"
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
