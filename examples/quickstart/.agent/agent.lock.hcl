# This file is maintained by "agent lock". Do not edit it by hand:
# check-config verifies every provider against it.

lock_file_version = 1

provider "fs" {
  source      = "builtin/filesystem"
  version     = "0.1.0"
  resolved_at = "2026-12-02T00:14:34Z"
  checksums = {
    "darwin_amd64"  = "sha256:ba97514ba913789f28a8436aede1bf13d2264e82f40be5c8ffb27959e4ef7f62"
    "darwin_arm64"  = "sha256:ba97514ba913789f28a8436aede1bf13d2264e82f40be5c8ffb27959e4ef7f62"
    "linux_amd64"   = "sha256:ba97514ba913789f28a8436aede1bf13d2264e82f40be5c8ffb27959e4ef7f62"
    "linux_arm64"   = "sha256:ba97514ba913789f28a8436aede1bf13d2264e82f40be5c8ffb27959e4ef7f62"
    "windows_amd64" = "sha256:ba97514ba913789f28a8436aede1bf13d2264e82f40be5c8ffb27959e4ef7f62"
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
}

provider "scripted" {
  source      = "builtin/scripted"
  version     = "0.1.0"
  resolved_at = "2026-12-02T00:02:18Z"
  checksums = {
    "darwin_amd64"  = "sha256:a11f103d7cdfc732e16b0fe63cbb8e3bdd794cc1277ba22767dbe52f949329a3"
    "darwin_arm64"  = "sha256:a11f103d7cdfc732e16b0fe63cbb8e3bdd794cc1277ba22767dbe52f949329a3"
    "linux_amd64"   = "sha256:a11f103d7cdfc732e16b0fe63cbb8e3bdd794cc1277ba22767dbe52f949329a3"
    "linux_arm64"   = "sha256:a11f103d7cdfc732e16b0fe63cbb8e3bdd794cc1277ba22767dbe52f949329a3"
    "windows_amd64" = "sha256:a11f103d7cdfc732e16b0fe63cbb8e3bdd794cc1277ba22767dbe52f949329a3"
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
