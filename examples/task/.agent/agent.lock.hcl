# This file is maintained by "agent lock". Do not edit it by hand:
# check-config verifies every provider against it.

lock_file_version = 1

provider "scripted" {
  source      = "builtin/scripted"
  version     = "0.1.0"
  resolved_at = "2026-12-02T02:33:54Z"
  checksums = {
    "darwin_amd64"  = "sha256:3d62ae1e0ef54370b246e9a1626e9703c748385245114642d49a5e062a889ac8"
    "darwin_arm64"  = "sha256:3d62ae1e0ef54370b246e9a1626e9703c748385245114642d49a5e062a889ac8"
    "linux_amd64"   = "sha256:3d62ae1e0ef54370b246e9a1626e9703c748385245114642d49a5e062a889ac8"
    "linux_arm64"   = "sha256:3d62ae1e0ef54370b246e9a1626e9703c748385245114642d49a5e062a889ac8"
    "windows_amd64" = "sha256:3d62ae1e0ef54370b246e9a1626e9703c748385245114642d49a5e062a889ac8"
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
  resolved_at = "2026-12-02T02:33:54Z"
  checksums = {
    "darwin_amd64"  = "sha256:6cc48620357350ca24d0492a8fa5239d47be47075387d7f81fb982a102b08122"
    "darwin_arm64"  = "sha256:6cc48620357350ca24d0492a8fa5239d47be47075387d7f81fb982a102b08122"
    "linux_amd64"   = "sha256:6cc48620357350ca24d0492a8fa5239d47be47075387d7f81fb982a102b08122"
    "linux_arm64"   = "sha256:6cc48620357350ca24d0492a8fa5239d47be47075387d7f81fb982a102b08122"
    "windows_amd64" = "sha256:6cc48620357350ca24d0492a8fa5239d47be47075387d7f81fb982a102b08122"
  }
  envelope = {
    env   = []
    run   = []
    read  = []
    write = []
    net   = []
  }
  config_schema = []
}
