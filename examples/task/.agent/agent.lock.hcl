# This file is maintained by "agent lock". Do not edit it by hand:
# check-config verifies every provider against it.

lock_file_version = 1

provider "scripted" {
  source      = "builtin/scripted"
  version     = "0.1.0"
  resolved_at = "2026-12-02T06:09:19Z"
  checksums = {
    "darwin_amd64"  = "sha256:62553b0278d09b7b7337760f0d76fa0536d91bfffe3a4dc0327334c9cfba6b22"
    "darwin_arm64"  = "sha256:62553b0278d09b7b7337760f0d76fa0536d91bfffe3a4dc0327334c9cfba6b22"
    "linux_amd64"   = "sha256:62553b0278d09b7b7337760f0d76fa0536d91bfffe3a4dc0327334c9cfba6b22"
    "linux_arm64"   = "sha256:62553b0278d09b7b7337760f0d76fa0536d91bfffe3a4dc0327334c9cfba6b22"
    "windows_amd64" = "sha256:62553b0278d09b7b7337760f0d76fa0536d91bfffe3a4dc0327334c9cfba6b22"
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
  resolved_at = "2026-12-02T06:09:19Z"
  checksums = {
    "darwin_amd64"  = "sha256:58e649faf1c3e020220b7e90317885a21ec4d771e55dff248d38c580d7e95844"
    "darwin_arm64"  = "sha256:58e649faf1c3e020220b7e90317885a21ec4d771e55dff248d38c580d7e95844"
    "linux_amd64"   = "sha256:58e649faf1c3e020220b7e90317885a21ec4d771e55dff248d38c580d7e95844"
    "linux_arm64"   = "sha256:58e649faf1c3e020220b7e90317885a21ec4d771e55dff248d38c580d7e95844"
    "windows_amd64" = "sha256:58e649faf1c3e020220b7e90317885a21ec4d771e55dff248d38c580d7e95844"
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
