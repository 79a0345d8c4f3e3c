# This file is maintained by "agent lock". Do not edit it by hand:
# check-config verifies every provider against it.

lock_file_version = 1

provider "scripted" {
  source      = "builtin/scripted"
  version     = "0.1.0"
  resolved_at = "2026-12-02T03:32:48Z"
  checksums = {
    "darwin_amd64"  = "sha256:3eccd676a3dfe3cc2a8a69ae5b5a913df6e0585cc04ed852497f63fbbd7d824a"
    "darwin_arm64"  = "sha256:3eccd676a3dfe3cc2a8a69ae5b5a913df6e0585cc04ed852497f63fbbd7d824a"
    "linux_amd64"   = "sha256:3eccd676a3dfe3cc2a8a69ae5b5a913df6e0585cc04ed852497f63fbbd7d824a"
    "linux_arm64"   = "sha256:3eccd676a3dfe3cc2a8a69ae5b5a913df6e0585cc04ed852497f63fbbd7d824a"
    "windows_amd64" = "sha256:3eccd676a3dfe3cc2a8a69ae5b5a913df6e0585cc04ed852497f63fbbd7d824a"
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
  resolved_at = "2026-12-02T03:32:48Z"
  checksums = {
    "darwin_amd64"  = "sha256:5fe26807c3ce7984a62d2c801b2a135cdc6e8c72477fbd4871d2f69262335e75"
    "darwin_arm64"  = "sha256:5fe26807c3ce7984a62d2c801b2a135cdc6e8c72477fbd4871d2f69262335e75"
    "linux_amd64"   = "sha256:5fe26807c3ce7984a62d2c801b2a135cdc6e8c72477fbd4871d2f69262335e75"
    "linux_arm64"   = "sha256:5fe26807c3ce7984a62d2c801b2a135cdc6e8c72477fbd4871d2f69262335e75"
    "windows_amd64" = "sha256:5fe26807c3ce7984a62d2c801b2a135cdc6e8c72477fbd4871d2f69262335e75"
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
