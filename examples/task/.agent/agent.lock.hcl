# This file is maintained by "agent lock". Do not edit it by hand:
# check-config verifies every provider against it.

lock_file_version = 1

provider "scripted" {
  source      = "builtin/scripted"
  version     = "0.1.0"
  resolved_at = "2026-12-02T05:38:06Z"
  checksums = {
    "darwin_amd64"  = "sha256:f8e0a5dc25efaedd8b85e9306d53a37ac759a362956ea80706868c12d6bcee9f"
    "darwin_arm64"  = "sha256:f8e0a5dc25efaedd8b85e9306d53a37ac759a362956ea80706868c12d6bcee9f"
    "linux_amd64"   = "sha256:f8e0a5dc25efaedd8b85e9306d53a37ac759a362956ea80706868c12d6bcee9f"
    "linux_arm64"   = "sha256:f8e0a5dc25efaedd8b85e9306d53a37ac759a362956ea80706868c12d6bcee9f"
    "windows_amd64" = "sha256:f8e0a5dc25efaedd8b85e9306d53a37ac759a362956ea80706868c12d6bcee9f"
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
  resolved_at = "2026-12-02T05:38:06Z"
  checksums = {
    "darwin_amd64"  = "sha256:f2ad63082664b174896ab3d1bd0a954ab140b81040ab97332832fffcb7f7c129"
    "darwin_arm64"  = "sha256:f2ad63082664b174896ab3d1bd0a954ab140b81040ab97332832fffcb7f7c129"
    "linux_amd64"   = "sha256:f2ad63082664b174896ab3d1bd0a954ab140b81040ab97332832fffcb7f7c129"
    "linux_arm64"   = "sha256:f2ad63082664b174896ab3d1bd0a954ab140b81040ab97332832fffcb7f7c129"
    "windows_amd64" = "sha256:f2ad63082664b174896ab3d1bd0a954ab140b81040ab97332832fffcb7f7c129"
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
