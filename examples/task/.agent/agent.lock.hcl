# This file is maintained by "agent lock". Do not edit it by hand:
# check-config verifies every provider against it.

lock_file_version = 1

provider "scripted" {
  source      = "builtin/scripted"
  version     = "0.1.0"
  resolved_at = "2026-12-02T06:17:04Z"
  checksums = {
    "darwin_amd64"  = "sha256:b4206bb46dd1579cffbcf4c251441fb6b866af55be7707498a176a4fb16d1109"
    "darwin_arm64"  = "sha256:b4206bb46dd1579cffbcf4c251441fb6b866af55be7707498a176a4fb16d1109"
    "linux_amd64"   = "sha256:b4206bb46dd1579cffbcf4c251441fb6b866af55be7707498a176a4fb16d1109"
    "linux_arm64"   = "sha256:b4206bb46dd1579cffbcf4c251441fb6b866af55be7707498a176a4fb16d1109"
    "windows_amd64" = "sha256:b4206bb46dd1579cffbcf4c251441fb6b866af55be7707498a176a4fb16d1109"
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
  resolved_at = "2026-12-02T06:17:04Z"
  checksums = {
    "darwin_amd64"  = "sha256:11559b0883e120af8640b67fbca62763701fb221519a2ad0e11d93d51203d20d"
    "darwin_arm64"  = "sha256:11559b0883e120af8640b67fbca62763701fb221519a2ad0e11d93d51203d20d"
    "linux_amd64"   = "sha256:11559b0883e120af8640b67fbca62763701fb221519a2ad0e11d93d51203d20d"
    "linux_arm64"   = "sha256:11559b0883e120af8640b67fbca62763701fb221519a2ad0e11d93d51203d20d"
    "windows_amd64" = "sha256:11559b0883e120af8640b67fbca62763701fb221519a2ad0e11d93d51203d20d"
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
