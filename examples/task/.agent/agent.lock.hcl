# This file is maintained by "agent lock". Do not edit it by hand:
# check-config verifies every provider against it.

lock_file_version = 1

provider "scripted" {
  source      = "builtin/scripted"
  version     = "0.1.0"
  resolved_at = "2026-12-02T06:14:40Z"
  checksums = {
    "darwin_amd64"  = "sha256:74529334104fbd73c5262acc93e405d2694cea06d9e4854fedf91d27d408c8f0"
    "darwin_arm64"  = "sha256:74529334104fbd73c5262acc93e405d2694cea06d9e4854fedf91d27d408c8f0"
    "linux_amd64"   = "sha256:74529334104fbd73c5262acc93e405d2694cea06d9e4854fedf91d27d408c8f0"
    "linux_arm64"   = "sha256:74529334104fbd73c5262acc93e405d2694cea06d9e4854fedf91d27d408c8f0"
    "windows_amd64" = "sha256:74529334104fbd73c5262acc93e405d2694cea06d9e4854fedf91d27d408c8f0"
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
  resolved_at = "2026-12-02T06:14:40Z"
  checksums = {
    "darwin_amd64"  = "sha256:ac3660d2412e45b1a175561caf98227f4359a8f2a1b4c3dd7c6a3f1614d66f8c"
    "darwin_arm64"  = "sha256:ac3660d2412e45b1a175561caf98227f4359a8f2a1b4c3dd7c6a3f1614d66f8c"
    "linux_amd64"   = "sha256:ac3660d2412e45b1a175561caf98227f4359a8f2a1b4c3dd7c6a3f1614d66f8c"
    "linux_arm64"   = "sha256:ac3660d2412e45b1a175561caf98227f4359a8f2a1b4c3dd7c6a3f1614d66f8c"
    "windows_amd64" = "sha256:ac3660d2412e45b1a175561caf98227f4359a8f2a1b4c3dd7c6a3f1614d66f8c"
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
