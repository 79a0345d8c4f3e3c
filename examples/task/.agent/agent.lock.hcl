# This file is maintained by "agent lock". Do not edit it by hand:
# check-config verifies every provider against it.

lock_file_version = 1

provider "scripted" {
  source      = "builtin/scripted"
  version     = "0.1.0"
  resolved_at = "2026-12-02T12:16:47Z"
  checksums = {
    "darwin_amd64"  = "sha256:481fc726ae9cd086f67d269f4bf58a1ff5a44dcf88dd42328f4d94a4fb3438e0"
    "darwin_arm64"  = "sha256:481fc726ae9cd086f67d269f4bf58a1ff5a44dcf88dd42328f4d94a4fb3438e0"
    "linux_amd64"   = "sha256:481fc726ae9cd086f67d269f4bf58a1ff5a44dcf88dd42328f4d94a4fb3438e0"
    "linux_arm64"   = "sha256:481fc726ae9cd086f67d269f4bf58a1ff5a44dcf88dd42328f4d94a4fb3438e0"
    "windows_amd64" = "sha256:481fc726ae9cd086f67d269f4bf58a1ff5a44dcf88dd42328f4d94a4fb3438e0"
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
  resolved_at = "2026-12-02T12:16:47Z"
  checksums = {
    "darwin_amd64"  = "sha256:8f8f515b0a3530b50e38b27fb008e8817863d57e2964897b36bbf8f64560edf7"
    "darwin_arm64"  = "sha256:8f8f515b0a3530b50e38b27fb008e8817863d57e2964897b36bbf8f64560edf7"
    "linux_amd64"   = "sha256:8f8f515b0a3530b50e38b27fb008e8817863d57e2964897b36bbf8f64560edf7"
    "linux_arm64"   = "sha256:8f8f515b0a3530b50e38b27fb008e8817863d57e2964897b36bbf8f64560edf7"
    "windows_amd64" = "sha256:8f8f515b0a3530b50e38b27fb008e8817863d57e2964897b36bbf8f64560edf7"
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
