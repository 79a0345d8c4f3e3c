# This file is maintained by "agent lock". Do not edit it by hand:
# check-config verifies every provider against it.

lock_file_version = 1

provider "scripted" {
  source      = "builtin/scripted"
  version     = "0.1.0"
  resolved_at = "2026-12-02T08:03:34Z"
  checksums = {
    "darwin_amd64"  = "sha256:58e18624951e040848f1b6de303a800e07abcfe9dd8b81b936cbc41209bd5195"
    "darwin_arm64"  = "sha256:58e18624951e040848f1b6de303a800e07abcfe9dd8b81b936cbc41209bd5195"
    "linux_amd64"   = "sha256:58e18624951e040848f1b6de303a800e07abcfe9dd8b81b936cbc41209bd5195"
    "linux_arm64"   = "sha256:58e18624951e040848f1b6de303a800e07abcfe9dd8b81b936cbc41209bd5195"
    "windows_amd64" = "sha256:58e18624951e040848f1b6de303a800e07abcfe9dd8b81b936cbc41209bd5195"
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
  resolved_at = "2026-12-02T08:03:34Z"
  checksums = {
    "darwin_amd64"  = "sha256:ba52df2bca2da189ef407dcd517c15dafd1a47a2e78ceac2b2e4de2dea656c90"
    "darwin_arm64"  = "sha256:ba52df2bca2da189ef407dcd517c15dafd1a47a2e78ceac2b2e4de2dea656c90"
    "linux_amd64"   = "sha256:ba52df2bca2da189ef407dcd517c15dafd1a47a2e78ceac2b2e4de2dea656c90"
    "linux_arm64"   = "sha256:ba52df2bca2da189ef407dcd517c15dafd1a47a2e78ceac2b2e4de2dea656c90"
    "windows_amd64" = "sha256:ba52df2bca2da189ef407dcd517c15dafd1a47a2e78ceac2b2e4de2dea656c90"
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
