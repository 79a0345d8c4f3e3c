# This file is maintained by "agent lock". Do not edit it by hand:
# check-config verifies every provider against it.

lock_file_version = 1

provider "fs" {
  source      = "builtin/filesystem"
  version     = "0.1.0"
  resolved_at = "2026-12-02T12:16:46Z"
  checksums = {
    "darwin_amd64"  = "sha256:4fc3e56f1260bfc18793b103456666960265e40271e3ac1fe3b51862c0ccd05d"
    "darwin_arm64"  = "sha256:4fc3e56f1260bfc18793b103456666960265e40271e3ac1fe3b51862c0ccd05d"
    "linux_amd64"   = "sha256:4fc3e56f1260bfc18793b103456666960265e40271e3ac1fe3b51862c0ccd05d"
    "linux_arm64"   = "sha256:4fc3e56f1260bfc18793b103456666960265e40271e3ac1fe3b51862c0ccd05d"
    "windows_amd64" = "sha256:4fc3e56f1260bfc18793b103456666960265e40271e3ac1fe3b51862c0ccd05d"
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
  resolved_at = "2026-12-02T12:16:46Z"
  checksums = {
    "darwin_amd64"  = "sha256:481fc726ae9cd086f67d269f4bf58a1ff5a44dcf88dd42328f4d94a4fb3438e0"
    "darwin_arm64"  = "sha256:481fc726ae9cd086f67d269f4bf58a1ff5a44dcf88dd42328f4d94a4fb3438e0"
    "linux_amd64"   = "sha256:481fc726ae9cd086f67d269f4bf58a1ff5a44dcf88dd42328f4d94a4fb3438e0"
    "linux_arm64"   = "sha256:481fc726ae9cd086f67d269f4bf58a1ff5a44dcf88dd42328f4d94a4fb3438e0"
    "windows_amd64" = "sha256:481fc726ae9cd086f67d269f4bf58a1ff5a44dcf88dd42328f4d94a4fb3438e0"
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

provider "search" {
  source      = "builtin/search"
  version     = "0.1.0"
  resolved_at = "2026-12-02T17:59:57Z"
  checksums = {
    "darwin_amd64"  = "sha256:7b2001777d7c45b4e0afa22fd63bbeeb81ef8fa9e7de0cd3eba1df62ce5c7aae"
    "darwin_arm64"  = "sha256:7b2001777d7c45b4e0afa22fd63bbeeb81ef8fa9e7de0cd3eba1df62ce5c7aae"
    "linux_amd64"   = "sha256:7b2001777d7c45b4e0afa22fd63bbeeb81ef8fa9e7de0cd3eba1df62ce5c7aae"
    "linux_arm64"   = "sha256:7b2001777d7c45b4e0afa22fd63bbeeb81ef8fa9e7de0cd3eba1df62ce5c7aae"
    "windows_amd64" = "sha256:7b2001777d7c45b4e0afa22fd63bbeeb81ef8fa9e7de0cd3eba1df62ce5c7aae"
  }
  envelope = {
    env   = []
    run   = ["rg?"]
    read  = ["."]
    write = []
    net   = []
  }
  config_schema = [
    {
      name        = "roots"
      type        = "list(string)"
      required    = true
      sensitive   = false
      description = "Directories glob and grep may search. Absolute, or relative to the session's working directory. A path escaping every root, through .. or a symbolic link, is refused; symbolic links met during a walk are not followed."
    },
  ]
  tools = [
    {
      name = "glob"
      kind = "data_source"
      risk = "read_only"
    },
    {
      name = "grep"
      kind = "data_source"
      risk = "read_only"
    },
  ]
}
