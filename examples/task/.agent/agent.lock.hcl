# This file is maintained by "agent lock". Do not edit it by hand:
# check-config verifies every provider against it.

lock_file_version = 1

provider "scripted" {
  source      = "builtin/scripted"
  version     = "0.1.0"
  resolved_at = "2026-12-02T02:04:14Z"
  checksums = {
    "darwin_amd64"  = "sha256:830022820cebea4c9be517442457fea07fd089425802563993ae24ff073308ce"
    "darwin_arm64"  = "sha256:830022820cebea4c9be517442457fea07fd089425802563993ae24ff073308ce"
    "linux_amd64"   = "sha256:830022820cebea4c9be517442457fea07fd089425802563993ae24ff073308ce"
    "linux_arm64"   = "sha256:830022820cebea4c9be517442457fea07fd089425802563993ae24ff073308ce"
    "windows_amd64" = "sha256:830022820cebea4c9be517442457fea07fd089425802563993ae24ff073308ce"
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
  resolved_at = "2026-12-02T02:59:28Z"
  checksums = {
    "darwin_amd64"  = "sha256:6ea5f5e31a2ac3ad23e34ebdc07541e22439ac0a448123469a568d9c4465a7a0"
    "darwin_arm64"  = "sha256:6ea5f5e31a2ac3ad23e34ebdc07541e22439ac0a448123469a568d9c4465a7a0"
    "linux_amd64"   = "sha256:6ea5f5e31a2ac3ad23e34ebdc07541e22439ac0a448123469a568d9c4465a7a0"
    "linux_arm64"   = "sha256:6ea5f5e31a2ac3ad23e34ebdc07541e22439ac0a448123469a568d9c4465a7a0"
    "windows_amd64" = "sha256:6ea5f5e31a2ac3ad23e34ebdc07541e22439ac0a448123469a568d9c4465a7a0"
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
