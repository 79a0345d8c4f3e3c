# This file is maintained by "agent lock". Do not edit it by hand:
# check-config verifies every provider against it.

lock_file_version = 1

provider "scripted" {
  source      = "builtin/scripted"
  version     = "0.1.0"
  resolved_at = "2026-12-02T08:28:39Z"
  checksums = {
    "darwin_amd64"  = "sha256:87857aae9d855e216cc45b784c7ecc90f22def64f128f1efb2971349314efa9b"
    "darwin_arm64"  = "sha256:87857aae9d855e216cc45b784c7ecc90f22def64f128f1efb2971349314efa9b"
    "linux_amd64"   = "sha256:87857aae9d855e216cc45b784c7ecc90f22def64f128f1efb2971349314efa9b"
    "linux_arm64"   = "sha256:87857aae9d855e216cc45b784c7ecc90f22def64f128f1efb2971349314efa9b"
    "windows_amd64" = "sha256:87857aae9d855e216cc45b784c7ecc90f22def64f128f1efb2971349314efa9b"
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
  resolved_at = "2026-12-02T08:28:39Z"
  checksums = {
    "darwin_amd64"  = "sha256:4d5ab33f2d5c734496d2c0b70fa8a4a6c7fc4c4f289e7ad8ab64b2b5ff1f9a6f"
    "darwin_arm64"  = "sha256:4d5ab33f2d5c734496d2c0b70fa8a4a6c7fc4c4f289e7ad8ab64b2b5ff1f9a6f"
    "linux_amd64"   = "sha256:4d5ab33f2d5c734496d2c0b70fa8a4a6c7fc4c4f289e7ad8ab64b2b5ff1f9a6f"
    "linux_arm64"   = "sha256:4d5ab33f2d5c734496d2c0b70fa8a4a6c7fc4c4f289e7ad8ab64b2b5ff1f9a6f"
    "windows_amd64" = "sha256:4d5ab33f2d5c734496d2c0b70fa8a4a6c7fc4c4f289e7ad8ab64b2b5ff1f9a6f"
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
