# This file is maintained by "agent lock". Do not edit it by hand:
# check-config verifies every provider against it.

lock_file_version = 1

provider "scripted" {
  source      = "builtin/scripted"
  version     = "0.1.0"
  resolved_at = "2026-12-02T02:36:46Z"
  checksums = {
    "darwin_amd64"  = "sha256:0e1c432cf43ed72df13c39486e357a8516b70865ce973a2b8643db921bac1eaa"
    "darwin_arm64"  = "sha256:0e1c432cf43ed72df13c39486e357a8516b70865ce973a2b8643db921bac1eaa"
    "linux_amd64"   = "sha256:0e1c432cf43ed72df13c39486e357a8516b70865ce973a2b8643db921bac1eaa"
    "linux_arm64"   = "sha256:0e1c432cf43ed72df13c39486e357a8516b70865ce973a2b8643db921bac1eaa"
    "windows_amd64" = "sha256:0e1c432cf43ed72df13c39486e357a8516b70865ce973a2b8643db921bac1eaa"
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
  resolved_at = "2026-12-02T02:36:46Z"
  checksums = {
    "darwin_amd64"  = "sha256:74c24231946658724e0332c9e964e30e3fe461f494b757dfdaca1c7c74fb1751"
    "darwin_arm64"  = "sha256:74c24231946658724e0332c9e964e30e3fe461f494b757dfdaca1c7c74fb1751"
    "linux_amd64"   = "sha256:74c24231946658724e0332c9e964e30e3fe461f494b757dfdaca1c7c74fb1751"
    "linux_arm64"   = "sha256:74c24231946658724e0332c9e964e30e3fe461f494b757dfdaca1c7c74fb1751"
    "windows_amd64" = "sha256:74c24231946658724e0332c9e964e30e3fe461f494b757dfdaca1c7c74fb1751"
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
