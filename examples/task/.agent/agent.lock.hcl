# This file is maintained by "agent lock". Do not edit it by hand:
# check-config verifies every provider against it.

lock_file_version = 1

provider "scripted" {
  source      = "builtin/scripted"
  version     = "0.1.0"
  resolved_at = "2026-12-02T03:46:36Z"
  checksums = {
    "darwin_amd64"  = "sha256:63d0244ded75a62acce610debb049814957777115d83462a8687ed00f6045097"
    "darwin_arm64"  = "sha256:63d0244ded75a62acce610debb049814957777115d83462a8687ed00f6045097"
    "linux_amd64"   = "sha256:63d0244ded75a62acce610debb049814957777115d83462a8687ed00f6045097"
    "linux_arm64"   = "sha256:63d0244ded75a62acce610debb049814957777115d83462a8687ed00f6045097"
    "windows_amd64" = "sha256:63d0244ded75a62acce610debb049814957777115d83462a8687ed00f6045097"
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
  resolved_at = "2026-12-02T03:17:49Z"
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
