# This file is maintained by "agent lock". Do not edit it by hand:
# check-config verifies every provider against it.

lock_file_version = 1

provider "scripted" {
  source      = "builtin/scripted"
  version     = "0.1.0"
  resolved_at = "2026-12-02T09:07:55Z"
  checksums = {
    "darwin_amd64"  = "sha256:0fae929040b734b7daebf517445fa7a0197042a9f3447fc57534b1e49579daf2"
    "darwin_arm64"  = "sha256:0fae929040b734b7daebf517445fa7a0197042a9f3447fc57534b1e49579daf2"
    "linux_amd64"   = "sha256:0fae929040b734b7daebf517445fa7a0197042a9f3447fc57534b1e49579daf2"
    "linux_arm64"   = "sha256:0fae929040b734b7daebf517445fa7a0197042a9f3447fc57534b1e49579daf2"
    "windows_amd64" = "sha256:0fae929040b734b7daebf517445fa7a0197042a9f3447fc57534b1e49579daf2"
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
  resolved_at = "2026-12-02T09:07:55Z"
  checksums = {
    "darwin_amd64"  = "sha256:b4824a09fb856e57b4f7713ea50aa60ec77f32b8426218885403aeb6d7512e8d"
    "darwin_arm64"  = "sha256:b4824a09fb856e57b4f7713ea50aa60ec77f32b8426218885403aeb6d7512e8d"
    "linux_amd64"   = "sha256:b4824a09fb856e57b4f7713ea50aa60ec77f32b8426218885403aeb6d7512e8d"
    "linux_arm64"   = "sha256:b4824a09fb856e57b4f7713ea50aa60ec77f32b8426218885403aeb6d7512e8d"
    "windows_amd64" = "sha256:b4824a09fb856e57b4f7713ea50aa60ec77f32b8426218885403aeb6d7512e8d"
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
