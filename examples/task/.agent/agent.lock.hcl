# This file is maintained by "agent lock". Do not edit it by hand:
# check-config verifies every provider against it.

lock_file_version = 1

provider "scripted" {
  source      = "builtin/scripted"
  version     = "0.1.0"
  resolved_at = "2026-12-02T03:02:30Z"
  checksums = {
    "darwin_amd64"  = "sha256:8adf31190fa7e084a73fbf685ee05e493c88b86bbc144dea712f068e7a47ced1"
    "darwin_arm64"  = "sha256:8adf31190fa7e084a73fbf685ee05e493c88b86bbc144dea712f068e7a47ced1"
    "linux_amd64"   = "sha256:8adf31190fa7e084a73fbf685ee05e493c88b86bbc144dea712f068e7a47ced1"
    "linux_arm64"   = "sha256:8adf31190fa7e084a73fbf685ee05e493c88b86bbc144dea712f068e7a47ced1"
    "windows_amd64" = "sha256:8adf31190fa7e084a73fbf685ee05e493c88b86bbc144dea712f068e7a47ced1"
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
  resolved_at = "2026-12-02T03:02:30Z"
  checksums = {
    "darwin_amd64"  = "sha256:f7fdfef5ca2c48e005e5a6e821fb6b81cf31693a6b71439088c855e3a0696168"
    "darwin_arm64"  = "sha256:f7fdfef5ca2c48e005e5a6e821fb6b81cf31693a6b71439088c855e3a0696168"
    "linux_amd64"   = "sha256:f7fdfef5ca2c48e005e5a6e821fb6b81cf31693a6b71439088c855e3a0696168"
    "linux_arm64"   = "sha256:f7fdfef5ca2c48e005e5a6e821fb6b81cf31693a6b71439088c855e3a0696168"
    "windows_amd64" = "sha256:f7fdfef5ca2c48e005e5a6e821fb6b81cf31693a6b71439088c855e3a0696168"
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
