# This file is maintained by "agent lock". Do not edit it by hand:
# check-config verifies every provider against it.

lock_file_version = 1

provider "scripted" {
  source      = "builtin/scripted"
  version     = "0.1.0"
  resolved_at = "2026-12-02T12:03:49Z"
  checksums = {
    "darwin_amd64"  = "sha256:7eecda5fbbc7024bef41ed83c109a46a21d3434566402ab82e56a36f6d079d6b"
    "darwin_arm64"  = "sha256:7eecda5fbbc7024bef41ed83c109a46a21d3434566402ab82e56a36f6d079d6b"
    "linux_amd64"   = "sha256:7eecda5fbbc7024bef41ed83c109a46a21d3434566402ab82e56a36f6d079d6b"
    "linux_arm64"   = "sha256:7eecda5fbbc7024bef41ed83c109a46a21d3434566402ab82e56a36f6d079d6b"
    "windows_amd64" = "sha256:7eecda5fbbc7024bef41ed83c109a46a21d3434566402ab82e56a36f6d079d6b"
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
  resolved_at = "2026-12-02T12:03:49Z"
  checksums = {
    "darwin_amd64"  = "sha256:cca36e7f2df8c7d4a7f295db63944630e0f76a397b238a6b2a0c00cf0cd99cb2"
    "darwin_arm64"  = "sha256:cca36e7f2df8c7d4a7f295db63944630e0f76a397b238a6b2a0c00cf0cd99cb2"
    "linux_amd64"   = "sha256:cca36e7f2df8c7d4a7f295db63944630e0f76a397b238a6b2a0c00cf0cd99cb2"
    "linux_arm64"   = "sha256:cca36e7f2df8c7d4a7f295db63944630e0f76a397b238a6b2a0c00cf0cd99cb2"
    "windows_amd64" = "sha256:cca36e7f2df8c7d4a7f295db63944630e0f76a397b238a6b2a0c00cf0cd99cb2"
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
