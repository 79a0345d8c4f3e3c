# This file is maintained by "agent lock". Do not edit it by hand:
# check-config verifies every provider against it.

lock_file_version = 1

provider "scripted" {
  source      = "builtin/scripted"
  version     = "0.1.0"
  resolved_at = "2026-12-03T04:05:03Z"
  checksums = {
    "darwin_amd64"  = "sha256:af45e1ba54820720efaaec84a6b1f18d722f67dd61252a317f05ed26027ed295"
    "darwin_arm64"  = "sha256:af45e1ba54820720efaaec84a6b1f18d722f67dd61252a317f05ed26027ed295"
    "linux_amd64"   = "sha256:af45e1ba54820720efaaec84a6b1f18d722f67dd61252a317f05ed26027ed295"
    "linux_arm64"   = "sha256:af45e1ba54820720efaaec84a6b1f18d722f67dd61252a317f05ed26027ed295"
    "windows_amd64" = "sha256:af45e1ba54820720efaaec84a6b1f18d722f67dd61252a317f05ed26027ed295"
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
  resolved_at = "2026-12-03T04:05:03Z"
  checksums = {
    "darwin_amd64"  = "sha256:ee159aa705ebbf997ca0f623ffb9c2e5dc2fc88b2e2f418d7eb91133c7293cbf"
    "darwin_arm64"  = "sha256:ee159aa705ebbf997ca0f623ffb9c2e5dc2fc88b2e2f418d7eb91133c7293cbf"
    "linux_amd64"   = "sha256:ee159aa705ebbf997ca0f623ffb9c2e5dc2fc88b2e2f418d7eb91133c7293cbf"
    "linux_arm64"   = "sha256:ee159aa705ebbf997ca0f623ffb9c2e5dc2fc88b2e2f418d7eb91133c7293cbf"
    "windows_amd64" = "sha256:ee159aa705ebbf997ca0f623ffb9c2e5dc2fc88b2e2f418d7eb91133c7293cbf"
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
