# This file is maintained by "agent lock". Do not edit it by hand:
# check-config verifies every provider against it.

lock_file_version = 1

provider "echo" {
  source      = "builtin/echo"
  version     = "0.1.0"
  resolved_at = "2026-12-03T08:37:51Z"
  checksums = {
    "darwin_amd64"  = "sha256:04a4023355a29b21bf95195e0fb0c7dd672b055f29063060322bc45bbc59b49f"
    "darwin_arm64"  = "sha256:04a4023355a29b21bf95195e0fb0c7dd672b055f29063060322bc45bbc59b49f"
    "linux_amd64"   = "sha256:04a4023355a29b21bf95195e0fb0c7dd672b055f29063060322bc45bbc59b49f"
    "linux_arm64"   = "sha256:04a4023355a29b21bf95195e0fb0c7dd672b055f29063060322bc45bbc59b49f"
    "windows_amd64" = "sha256:04a4023355a29b21bf95195e0fb0c7dd672b055f29063060322bc45bbc59b49f"
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
  resolved_at = "2026-12-03T08:37:51Z"
  checksums = {
    "darwin_amd64"  = "sha256:0cb7da6d6b8ecbf3b564b18146810b9741a5189253c12a70630df23c9869c064"
    "darwin_arm64"  = "sha256:0cb7da6d6b8ecbf3b564b18146810b9741a5189253c12a70630df23c9869c064"
    "linux_amd64"   = "sha256:0cb7da6d6b8ecbf3b564b18146810b9741a5189253c12a70630df23c9869c064"
    "linux_arm64"   = "sha256:0cb7da6d6b8ecbf3b564b18146810b9741a5189253c12a70630df23c9869c064"
    "windows_amd64" = "sha256:0cb7da6d6b8ecbf3b564b18146810b9741a5189253c12a70630df23c9869c064"
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
