# This file is maintained by "agent lock". Do not edit it by hand:
# check-config verifies every provider against it.

lock_file_version = 1

provider "scripted" {
  source      = "builtin/scripted"
  version     = "0.1.0"
  resolved_at = "2026-12-03T08:37:43Z"
  checksums = {
    "darwin_amd64"  = "sha256:c85f32d3efc569c5eaacf7196a520cc149cbadf90be66912c01566ab76481b87"
    "darwin_arm64"  = "sha256:c85f32d3efc569c5eaacf7196a520cc149cbadf90be66912c01566ab76481b87"
    "linux_amd64"   = "sha256:c85f32d3efc569c5eaacf7196a520cc149cbadf90be66912c01566ab76481b87"
    "linux_arm64"   = "sha256:c85f32d3efc569c5eaacf7196a520cc149cbadf90be66912c01566ab76481b87"
    "windows_amd64" = "sha256:c85f32d3efc569c5eaacf7196a520cc149cbadf90be66912c01566ab76481b87"
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
  resolved_at = "2026-12-03T08:37:43Z"
  checksums = {
    "darwin_amd64"  = "sha256:f4c5e2e9e199acdd6e5320a1060bcd857f82b7860b17a1cf38e771c102945be6"
    "darwin_arm64"  = "sha256:f4c5e2e9e199acdd6e5320a1060bcd857f82b7860b17a1cf38e771c102945be6"
    "linux_amd64"   = "sha256:f4c5e2e9e199acdd6e5320a1060bcd857f82b7860b17a1cf38e771c102945be6"
    "linux_arm64"   = "sha256:f4c5e2e9e199acdd6e5320a1060bcd857f82b7860b17a1cf38e771c102945be6"
    "windows_amd64" = "sha256:f4c5e2e9e199acdd6e5320a1060bcd857f82b7860b17a1cf38e771c102945be6"
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
