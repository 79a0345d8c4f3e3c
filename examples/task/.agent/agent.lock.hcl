# This file is maintained by "agent lock". Do not edit it by hand:
# check-config verifies every provider against it.

lock_file_version = 1

provider "scripted" {
  source      = "builtin/scripted"
  version     = "0.1.0"
  resolved_at = "2026-12-03T08:38:02Z"
  checksums = {
    "darwin_amd64"  = "sha256:587aeffa21e8e5463401c9bf463cd659113e11c7e6114bebcd299263107787ed"
    "darwin_arm64"  = "sha256:587aeffa21e8e5463401c9bf463cd659113e11c7e6114bebcd299263107787ed"
    "linux_amd64"   = "sha256:587aeffa21e8e5463401c9bf463cd659113e11c7e6114bebcd299263107787ed"
    "linux_arm64"   = "sha256:587aeffa21e8e5463401c9bf463cd659113e11c7e6114bebcd299263107787ed"
    "windows_amd64" = "sha256:587aeffa21e8e5463401c9bf463cd659113e11c7e6114bebcd299263107787ed"
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
  resolved_at = "2026-12-03T08:38:02Z"
  checksums = {
    "darwin_amd64"  = "sha256:a71030934fb8de51b9fb298dcc1c1086c038678fe2705d127ec9597060c4a82c"
    "darwin_arm64"  = "sha256:a71030934fb8de51b9fb298dcc1c1086c038678fe2705d127ec9597060c4a82c"
    "linux_amd64"   = "sha256:a71030934fb8de51b9fb298dcc1c1086c038678fe2705d127ec9597060c4a82c"
    "linux_arm64"   = "sha256:a71030934fb8de51b9fb298dcc1c1086c038678fe2705d127ec9597060c4a82c"
    "windows_amd64" = "sha256:a71030934fb8de51b9fb298dcc1c1086c038678fe2705d127ec9597060c4a82c"
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
