# This file is maintained by "agent lock". Do not edit it by hand:
# check-config verifies every provider against it.

lock_file_version = 1

provider "scripted" {
  source      = "builtin/scripted"
  version     = "0.1.0"
  resolved_at = "2026-12-02T00:01:41Z"
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

provider "tasks" {
  source      = "builtin/task"
  version     = "0.1.0"
  resolved_at = "2026-12-01T23:37:32Z"
  checksums = {
    "darwin_amd64"  = "sha256:8d5ab284b632931dcf2ef7c76e510880c04f5801f617014d302d7c84d51700aa"
    "darwin_arm64"  = "sha256:8d5ab284b632931dcf2ef7c76e510880c04f5801f617014d302d7c84d51700aa"
    "linux_amd64"   = "sha256:8d5ab284b632931dcf2ef7c76e510880c04f5801f617014d302d7c84d51700aa"
    "linux_arm64"   = "sha256:8d5ab284b632931dcf2ef7c76e510880c04f5801f617014d302d7c84d51700aa"
    "windows_amd64" = "sha256:8d5ab284b632931dcf2ef7c76e510880c04f5801f617014d302d7c84d51700aa"
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
