# This file is maintained by "agent lock". Do not edit it by hand:
# check-config verifies every provider against it.

lock_file_version = 1

provider "fs" {
  source      = "builtin/filesystem"
  version     = "0.1.0"
  resolved_at = "2026-12-02T03:17:45Z"
  checksums = {
    "darwin_amd64"  = "sha256:9f478b914875844f67f62c0b89723b81b71e792d024bdb3314904c36fe9ae358"
    "darwin_arm64"  = "sha256:9f478b914875844f67f62c0b89723b81b71e792d024bdb3314904c36fe9ae358"
    "linux_amd64"   = "sha256:9f478b914875844f67f62c0b89723b81b71e792d024bdb3314904c36fe9ae358"
    "linux_arm64"   = "sha256:9f478b914875844f67f62c0b89723b81b71e792d024bdb3314904c36fe9ae358"
    "windows_amd64" = "sha256:9f478b914875844f67f62c0b89723b81b71e792d024bdb3314904c36fe9ae358"
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
  resolved_at = "2026-12-02T03:17:45Z"
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

provider "search" {
  source      = "builtin/search"
  version     = "0.1.0"
  resolved_at = "2026-12-02T03:17:45Z"
  checksums = {
    "darwin_amd64"  = "sha256:2b1ca53a77c37aa73512ab011135ec9740fa11501e9daca19c19f45402d74e26"
    "darwin_arm64"  = "sha256:2b1ca53a77c37aa73512ab011135ec9740fa11501e9daca19c19f45402d74e26"
    "linux_amd64"   = "sha256:2b1ca53a77c37aa73512ab011135ec9740fa11501e9daca19c19f45402d74e26"
    "linux_arm64"   = "sha256:2b1ca53a77c37aa73512ab011135ec9740fa11501e9daca19c19f45402d74e26"
    "windows_amd64" = "sha256:2b1ca53a77c37aa73512ab011135ec9740fa11501e9daca19c19f45402d74e26"
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
