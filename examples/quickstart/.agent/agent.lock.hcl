# This file is maintained by "agent lock". Do not edit it by hand:
# check-config verifies every provider against it.

lock_file_version = 1

provider "fs" {
  source      = "builtin/filesystem"
  version     = "0.1.0"
  resolved_at = "2026-12-02T02:36:44Z"
  checksums = {
    "darwin_amd64"  = "sha256:51d7b28f2d3290ca51a9c14efa1ae4a4b1f825d1ea870a6ce6153699b18c5a1f"
    "darwin_arm64"  = "sha256:51d7b28f2d3290ca51a9c14efa1ae4a4b1f825d1ea870a6ce6153699b18c5a1f"
    "linux_amd64"   = "sha256:51d7b28f2d3290ca51a9c14efa1ae4a4b1f825d1ea870a6ce6153699b18c5a1f"
    "linux_arm64"   = "sha256:51d7b28f2d3290ca51a9c14efa1ae4a4b1f825d1ea870a6ce6153699b18c5a1f"
    "windows_amd64" = "sha256:51d7b28f2d3290ca51a9c14efa1ae4a4b1f825d1ea870a6ce6153699b18c5a1f"
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
  resolved_at = "2026-12-02T02:36:44Z"
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
