# This file is maintained by "agent lock". Do not edit it by hand:
# check-config verifies every provider against it.

lock_file_version = 1

provider "scripted" {
  source      = "builtin/scripted"
  version     = "0.1.0"
  resolved_at = "2026-12-02T05:08:12Z"
  checksums = {
    "darwin_amd64"  = "sha256:d5ce305597e391ee5fe2bb6ae8692336dc45faf09998675744575739e8ef33e9"
    "darwin_arm64"  = "sha256:d5ce305597e391ee5fe2bb6ae8692336dc45faf09998675744575739e8ef33e9"
    "linux_amd64"   = "sha256:d5ce305597e391ee5fe2bb6ae8692336dc45faf09998675744575739e8ef33e9"
    "linux_arm64"   = "sha256:d5ce305597e391ee5fe2bb6ae8692336dc45faf09998675744575739e8ef33e9"
    "windows_amd64" = "sha256:d5ce305597e391ee5fe2bb6ae8692336dc45faf09998675744575739e8ef33e9"
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
  resolved_at = "2026-12-02T05:08:12Z"
  checksums = {
    "darwin_amd64"  = "sha256:387e305032cf5b391bd3afefdaba5ae92836ca40e928a18e5f6fe5a2bb374933"
    "darwin_arm64"  = "sha256:387e305032cf5b391bd3afefdaba5ae92836ca40e928a18e5f6fe5a2bb374933"
    "linux_amd64"   = "sha256:387e305032cf5b391bd3afefdaba5ae92836ca40e928a18e5f6fe5a2bb374933"
    "linux_arm64"   = "sha256:387e305032cf5b391bd3afefdaba5ae92836ca40e928a18e5f6fe5a2bb374933"
    "windows_amd64" = "sha256:387e305032cf5b391bd3afefdaba5ae92836ca40e928a18e5f6fe5a2bb374933"
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
