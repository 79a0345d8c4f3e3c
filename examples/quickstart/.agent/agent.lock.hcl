# This file is maintained by "agent lock". Do not edit it by hand:
# check-config verifies every provider against it.

lock_file_version = 1

provider "fs" {
  source      = "builtin/filesystem"
  version     = "0.1.0"
  resolved_at = "2026-12-02T03:17:44Z"
  checksums = {
    "darwin_amd64"  = "sha256:db04614116768e51b9a311a7a9082d2cbf6bd4225c29813d2232c197422432cc"
    "darwin_arm64"  = "sha256:db04614116768e51b9a311a7a9082d2cbf6bd4225c29813d2232c197422432cc"
    "linux_amd64"   = "sha256:db04614116768e51b9a311a7a9082d2cbf6bd4225c29813d2232c197422432cc"
    "linux_arm64"   = "sha256:db04614116768e51b9a311a7a9082d2cbf6bd4225c29813d2232c197422432cc"
    "windows_amd64" = "sha256:db04614116768e51b9a311a7a9082d2cbf6bd4225c29813d2232c197422432cc"
  }
  envelope = {
    env   = []
    run   = []
    read  = ["."]
    write = ["."]
    net   = []
  }
  config_schema = [
    {
      name        = "roots"
      type        = "list(string)"
      required    = true
      sensitive   = false
      description = "Directories the tools may touch. Absolute, or relative to the session's working directory. A path escaping every root, through .. or a symbolic link, is refused."
    },
  ]
  tools = [
    {
      name = "read_file"
      kind = "data_source"
      risk = "read_only"
    },
    {
      name = "write_file"
      kind = "resource"
      risk = "moderate"
    },
    {
      name = "edit_file"
      kind = "resource"
      risk = "moderate"
    },
    {
      name = "multi_edit"
      kind = "resource"
      risk = "moderate"
    },
  ]
}

provider "scripted" {
  source      = "builtin/scripted"
  version     = "0.1.0"
  resolved_at = "2026-12-02T03:46:35Z"
  checksums = {
    "darwin_amd64"  = "sha256:63d0244ded75a62acce610debb049814957777115d83462a8687ed00f6045097"
    "darwin_arm64"  = "sha256:63d0244ded75a62acce610debb049814957777115d83462a8687ed00f6045097"
    "linux_amd64"   = "sha256:63d0244ded75a62acce610debb049814957777115d83462a8687ed00f6045097"
    "linux_arm64"   = "sha256:63d0244ded75a62acce610debb049814957777115d83462a8687ed00f6045097"
    "windows_amd64" = "sha256:63d0244ded75a62acce610debb049814957777115d83462a8687ed00f6045097"
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
