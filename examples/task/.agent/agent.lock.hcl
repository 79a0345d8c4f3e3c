# This file is maintained by "agent lock". Do not edit it by hand:
# check-config verifies every provider against it.

lock_file_version = 1

provider "scripted" {
  source      = "builtin/scripted"
  version     = "0.1.0"
  resolved_at = "2026-11-30T14:16:05Z"
  checksums = {
    "darwin_amd64"  = "sha256:cb48c8914a42682f359de6be8accd19500b77df3043911b27267d9d06cc7413b"
    "darwin_arm64"  = "sha256:cb48c8914a42682f359de6be8accd19500b77df3043911b27267d9d06cc7413b"
    "linux_amd64"   = "sha256:cb48c8914a42682f359de6be8accd19500b77df3043911b27267d9d06cc7413b"
    "linux_arm64"   = "sha256:cb48c8914a42682f359de6be8accd19500b77df3043911b27267d9d06cc7413b"
    "windows_amd64" = "sha256:cb48c8914a42682f359de6be8accd19500b77df3043911b27267d9d06cc7413b"
  }
  envelope = {
    env   = []
    run   = []
    read  = ["."]
    write = []
    net   = []
  }
  config_schema = [
    {
      name        = "script"
      type        = "string"
      required    = false
      sensitive   = false
      description = "Absolute path of the script file (JSON) to replay; the file must lie where the plugin may read (the kernel's working directory, granted with allow_read). Set script or turns_json."
    },
    {
      name        = "turns_json"
      type        = "string"
      required    = false
      sensitive   = false
      description = "The script inline, as JSON text: a script object or a bare list of turns. Set script or turns_json."
    },
  ]
}

provider "tasks" {
  source      = "builtin/task"
  version     = "0.1.0"
  resolved_at = "2026-11-30T14:16:05Z"
  checksums = {
    "darwin_amd64"  = "sha256:e71b7433d3e57602e0ff1d3569bb63a718d7ee68afb5e520bd2528856c891a00"
    "darwin_arm64"  = "sha256:e71b7433d3e57602e0ff1d3569bb63a718d7ee68afb5e520bd2528856c891a00"
    "linux_amd64"   = "sha256:e71b7433d3e57602e0ff1d3569bb63a718d7ee68afb5e520bd2528856c891a00"
    "linux_arm64"   = "sha256:e71b7433d3e57602e0ff1d3569bb63a718d7ee68afb5e520bd2528856c891a00"
    "windows_amd64" = "sha256:e71b7433d3e57602e0ff1d3569bb63a718d7ee68afb5e520bd2528856c891a00"
  }
  envelope = {
    env   = []
    run   = []
    read  = []
    write = []
    net   = []
  }
  config_schema = []
}
