# This file is maintained by "agent lock". Do not edit it by hand:
# check-config verifies every provider against it.

lock_file_version = 1

provider "scripted" {
  source      = "builtin/scripted"
  version     = "0.1.0"
  resolved_at = "2026-12-02T05:31:12Z"
  checksums = {
    "darwin_amd64"  = "sha256:ae57024b528c372403982cc342c4db6e701546111058484a25ad619094ca2614"
    "darwin_arm64"  = "sha256:ae57024b528c372403982cc342c4db6e701546111058484a25ad619094ca2614"
    "linux_amd64"   = "sha256:ae57024b528c372403982cc342c4db6e701546111058484a25ad619094ca2614"
    "linux_arm64"   = "sha256:ae57024b528c372403982cc342c4db6e701546111058484a25ad619094ca2614"
    "windows_amd64" = "sha256:ae57024b528c372403982cc342c4db6e701546111058484a25ad619094ca2614"
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
  resolved_at = "2026-12-02T05:31:12Z"
  checksums = {
    "darwin_amd64"  = "sha256:460b91f4d39da976b35bb816927589b97ca9fa375c8f66beef2f1d5c2e905be2"
    "darwin_arm64"  = "sha256:460b91f4d39da976b35bb816927589b97ca9fa375c8f66beef2f1d5c2e905be2"
    "linux_amd64"   = "sha256:460b91f4d39da976b35bb816927589b97ca9fa375c8f66beef2f1d5c2e905be2"
    "linux_arm64"   = "sha256:460b91f4d39da976b35bb816927589b97ca9fa375c8f66beef2f1d5c2e905be2"
    "windows_amd64" = "sha256:460b91f4d39da976b35bb816927589b97ca9fa375c8f66beef2f1d5c2e905be2"
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
