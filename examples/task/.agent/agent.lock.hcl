# This file is maintained by "agent lock". Do not edit it by hand:
# check-config verifies every provider against it.

lock_file_version = 1

provider "scripted" {
  source      = "builtin/scripted"
  version     = "0.1.0"
  resolved_at = "2026-12-03T08:38:18Z"
  checksums = {
    "darwin_amd64"  = "sha256:5408d1d8230fcbfa262261ef6277c9440f2972d9a8a1082ef20da6d25bc4d72d"
    "darwin_arm64"  = "sha256:5408d1d8230fcbfa262261ef6277c9440f2972d9a8a1082ef20da6d25bc4d72d"
    "linux_amd64"   = "sha256:5408d1d8230fcbfa262261ef6277c9440f2972d9a8a1082ef20da6d25bc4d72d"
    "linux_arm64"   = "sha256:5408d1d8230fcbfa262261ef6277c9440f2972d9a8a1082ef20da6d25bc4d72d"
    "windows_amd64" = "sha256:5408d1d8230fcbfa262261ef6277c9440f2972d9a8a1082ef20da6d25bc4d72d"
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
  resolved_at = "2026-12-03T08:38:18Z"
  checksums = {
    "darwin_amd64"  = "sha256:ff895dbae01b08804912c62f9542531af2c5937aaa14ccc14aab7a3f3592fa57"
    "darwin_arm64"  = "sha256:ff895dbae01b08804912c62f9542531af2c5937aaa14ccc14aab7a3f3592fa57"
    "linux_amd64"   = "sha256:ff895dbae01b08804912c62f9542531af2c5937aaa14ccc14aab7a3f3592fa57"
    "linux_arm64"   = "sha256:ff895dbae01b08804912c62f9542531af2c5937aaa14ccc14aab7a3f3592fa57"
    "windows_amd64" = "sha256:ff895dbae01b08804912c62f9542531af2c5937aaa14ccc14aab7a3f3592fa57"
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
