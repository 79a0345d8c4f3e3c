# This file is maintained by "agent lock". Do not edit it by hand:
# check-config verifies every provider against it.

lock_file_version = 1

provider "scripted" {
  source      = "builtin/scripted"
  version     = "0.1.0"
  resolved_at = "2026-12-02T00:42:23Z"
  checksums = {
    "darwin_amd64"  = "sha256:453f7287cb1b7f0a9746f0609d7ed79b1d56f16e795bd1079b9a80f85fdf20c4"
    "darwin_arm64"  = "sha256:453f7287cb1b7f0a9746f0609d7ed79b1d56f16e795bd1079b9a80f85fdf20c4"
    "linux_amd64"   = "sha256:453f7287cb1b7f0a9746f0609d7ed79b1d56f16e795bd1079b9a80f85fdf20c4"
    "linux_arm64"   = "sha256:453f7287cb1b7f0a9746f0609d7ed79b1d56f16e795bd1079b9a80f85fdf20c4"
    "windows_amd64" = "sha256:453f7287cb1b7f0a9746f0609d7ed79b1d56f16e795bd1079b9a80f85fdf20c4"
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
  resolved_at = "2026-12-02T02:09:31Z"
  checksums = {
    "darwin_amd64"  = "sha256:babb1e7c131d00ab93e5938b68e75c4e5683627db1a2a12691b125a0cdff576c"
    "darwin_arm64"  = "sha256:babb1e7c131d00ab93e5938b68e75c4e5683627db1a2a12691b125a0cdff576c"
    "linux_amd64"   = "sha256:babb1e7c131d00ab93e5938b68e75c4e5683627db1a2a12691b125a0cdff576c"
    "linux_arm64"   = "sha256:babb1e7c131d00ab93e5938b68e75c4e5683627db1a2a12691b125a0cdff576c"
    "windows_amd64" = "sha256:babb1e7c131d00ab93e5938b68e75c4e5683627db1a2a12691b125a0cdff576c"
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
