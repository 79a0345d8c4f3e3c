# This file is maintained by "agent lock". Do not edit it by hand:
# check-config verifies every provider against it.

lock_file_version = 1

provider "scripted" {
  source      = "builtin/scripted"
  version     = "0.1.0"
  resolved_at = "2026-12-02T11:25:42Z"
  checksums = {
    "darwin_amd64"  = "sha256:e403206e6471b01cd606388235cd16f588cdcaed3e10fc15a2fd8030c6895a17"
    "darwin_arm64"  = "sha256:e403206e6471b01cd606388235cd16f588cdcaed3e10fc15a2fd8030c6895a17"
    "linux_amd64"   = "sha256:e403206e6471b01cd606388235cd16f588cdcaed3e10fc15a2fd8030c6895a17"
    "linux_arm64"   = "sha256:e403206e6471b01cd606388235cd16f588cdcaed3e10fc15a2fd8030c6895a17"
    "windows_amd64" = "sha256:e403206e6471b01cd606388235cd16f588cdcaed3e10fc15a2fd8030c6895a17"
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
  resolved_at = "2026-12-02T11:25:42Z"
  checksums = {
    "darwin_amd64"  = "sha256:8bb0d6430446004f6daeb3ba9f9bf17345a29bb991fd08fc26a90368aec7cd9a"
    "darwin_arm64"  = "sha256:8bb0d6430446004f6daeb3ba9f9bf17345a29bb991fd08fc26a90368aec7cd9a"
    "linux_amd64"   = "sha256:8bb0d6430446004f6daeb3ba9f9bf17345a29bb991fd08fc26a90368aec7cd9a"
    "linux_arm64"   = "sha256:8bb0d6430446004f6daeb3ba9f9bf17345a29bb991fd08fc26a90368aec7cd9a"
    "windows_amd64" = "sha256:8bb0d6430446004f6daeb3ba9f9bf17345a29bb991fd08fc26a90368aec7cd9a"
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
