# This file is maintained by "agent lock". Do not edit it by hand:
# check-config verifies every provider against it.

lock_file_version = 1

provider "scripted" {
  source      = "builtin/scripted"
  version     = "0.1.0"
  resolved_at = "2026-12-02T05:27:22Z"
  checksums = {
    "darwin_amd64"  = "sha256:527537e503d8c45d4979739468bcbe26da2e7279925a55b53e511837d9d12f11"
    "darwin_arm64"  = "sha256:527537e503d8c45d4979739468bcbe26da2e7279925a55b53e511837d9d12f11"
    "linux_amd64"   = "sha256:527537e503d8c45d4979739468bcbe26da2e7279925a55b53e511837d9d12f11"
    "linux_arm64"   = "sha256:527537e503d8c45d4979739468bcbe26da2e7279925a55b53e511837d9d12f11"
    "windows_amd64" = "sha256:527537e503d8c45d4979739468bcbe26da2e7279925a55b53e511837d9d12f11"
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
  resolved_at = "2026-12-02T05:27:22Z"
  checksums = {
    "darwin_amd64"  = "sha256:fa4480b78acc955d1fe5ca22f8920bb956b20fff49a6f9698e302e074ce53bce"
    "darwin_arm64"  = "sha256:fa4480b78acc955d1fe5ca22f8920bb956b20fff49a6f9698e302e074ce53bce"
    "linux_amd64"   = "sha256:fa4480b78acc955d1fe5ca22f8920bb956b20fff49a6f9698e302e074ce53bce"
    "linux_arm64"   = "sha256:fa4480b78acc955d1fe5ca22f8920bb956b20fff49a6f9698e302e074ce53bce"
    "windows_amd64" = "sha256:fa4480b78acc955d1fe5ca22f8920bb956b20fff49a6f9698e302e074ce53bce"
  }
  envelope = {
    env   = []
    run   = []
    read  = []
    write = []
    net   = []
  }
  config_schema = []
  tools = [
    {
      name = "task_create"
      kind = "resource"
      risk = "low"
    },
    {
      name = "task_update"
      kind = "resource"
      risk = "low"
    },
    {
      name = "task_list"
      kind = "data_source"
      risk = "read_only"
    },
  ]
}
