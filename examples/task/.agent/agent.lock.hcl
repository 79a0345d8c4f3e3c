# This file is maintained by "agent lock". Do not edit it by hand:
# check-config verifies every provider against it.

lock_file_version = 1

provider "scripted" {
  source      = "builtin/scripted"
  version     = "0.1.0"
  resolved_at = "2026-12-02T06:08:26Z"
  checksums = {
    "darwin_amd64"  = "sha256:f4abbce255ed2e32226e13e16ec040cf6b6ba04234da746590bd4c61927753ec"
    "darwin_arm64"  = "sha256:f4abbce255ed2e32226e13e16ec040cf6b6ba04234da746590bd4c61927753ec"
    "linux_amd64"   = "sha256:f4abbce255ed2e32226e13e16ec040cf6b6ba04234da746590bd4c61927753ec"
    "linux_arm64"   = "sha256:f4abbce255ed2e32226e13e16ec040cf6b6ba04234da746590bd4c61927753ec"
    "windows_amd64" = "sha256:f4abbce255ed2e32226e13e16ec040cf6b6ba04234da746590bd4c61927753ec"
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
  resolved_at = "2026-12-02T06:08:26Z"
  checksums = {
    "darwin_amd64"  = "sha256:edf4bbfdc1eb2fe4d422c4f65663bddb6c170ceabd12e6d493cb207741f778c6"
    "darwin_arm64"  = "sha256:edf4bbfdc1eb2fe4d422c4f65663bddb6c170ceabd12e6d493cb207741f778c6"
    "linux_amd64"   = "sha256:edf4bbfdc1eb2fe4d422c4f65663bddb6c170ceabd12e6d493cb207741f778c6"
    "linux_arm64"   = "sha256:edf4bbfdc1eb2fe4d422c4f65663bddb6c170ceabd12e6d493cb207741f778c6"
    "windows_amd64" = "sha256:edf4bbfdc1eb2fe4d422c4f65663bddb6c170ceabd12e6d493cb207741f778c6"
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
