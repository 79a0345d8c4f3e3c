# This file is maintained by "agent lock". Do not edit it by hand:
# check-config verifies every provider against it.

lock_file_version = 1

provider "scripted" {
  source      = "builtin/scripted"
  version     = "0.1.0"
  resolved_at = "2026-12-03T08:38:25Z"
  checksums = {
    "darwin_amd64"  = "sha256:76117d01d51a265f410ad5c7ca50fd6430d8d2fe9740a50ea44d4875a170740d"
    "darwin_arm64"  = "sha256:76117d01d51a265f410ad5c7ca50fd6430d8d2fe9740a50ea44d4875a170740d"
    "linux_amd64"   = "sha256:76117d01d51a265f410ad5c7ca50fd6430d8d2fe9740a50ea44d4875a170740d"
    "linux_arm64"   = "sha256:76117d01d51a265f410ad5c7ca50fd6430d8d2fe9740a50ea44d4875a170740d"
    "windows_amd64" = "sha256:76117d01d51a265f410ad5c7ca50fd6430d8d2fe9740a50ea44d4875a170740d"
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
  resolved_at = "2026-12-03T08:38:25Z"
  checksums = {
    "darwin_amd64"  = "sha256:7fddd58521459dadc805a81f7f92176145010fb61a31b656abccf6062016f907"
    "darwin_arm64"  = "sha256:7fddd58521459dadc805a81f7f92176145010fb61a31b656abccf6062016f907"
    "linux_amd64"   = "sha256:7fddd58521459dadc805a81f7f92176145010fb61a31b656abccf6062016f907"
    "linux_arm64"   = "sha256:7fddd58521459dadc805a81f7f92176145010fb61a31b656abccf6062016f907"
    "windows_amd64" = "sha256:7fddd58521459dadc805a81f7f92176145010fb61a31b656abccf6062016f907"
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
