# This file is maintained by "agent lock". Do not edit it by hand:
# check-config verifies every provider against it.

lock_file_version = 1

provider "fs" {
  source      = "builtin/filesystem"
  version     = "0.1.0"
  resolved_at = "2026-11-30T12:53:07Z"
  checksums = {
    "darwin_amd64"  = "sha256:93566d6d4b72d7039c8b8348f211e6f4d3b3b892daeb2b8565b864773581f9a5"
    "darwin_arm64"  = "sha256:93566d6d4b72d7039c8b8348f211e6f4d3b3b892daeb2b8565b864773581f9a5"
    "linux_amd64"   = "sha256:93566d6d4b72d7039c8b8348f211e6f4d3b3b892daeb2b8565b864773581f9a5"
    "linux_arm64"   = "sha256:93566d6d4b72d7039c8b8348f211e6f4d3b3b892daeb2b8565b864773581f9a5"
    "windows_amd64" = "sha256:93566d6d4b72d7039c8b8348f211e6f4d3b3b892daeb2b8565b864773581f9a5"
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
  resolved_at = "2026-11-30T12:53:07Z"
  checksums = {
    "darwin_amd64"  = "sha256:22638c455ccb4a148ea826dd1d8e2f7a81e579b0e73162f2efdce21c5d767f76"
    "darwin_arm64"  = "sha256:22638c455ccb4a148ea826dd1d8e2f7a81e579b0e73162f2efdce21c5d767f76"
    "linux_amd64"   = "sha256:22638c455ccb4a148ea826dd1d8e2f7a81e579b0e73162f2efdce21c5d767f76"
    "linux_arm64"   = "sha256:22638c455ccb4a148ea826dd1d8e2f7a81e579b0e73162f2efdce21c5d767f76"
    "windows_amd64" = "sha256:22638c455ccb4a148ea826dd1d8e2f7a81e579b0e73162f2efdce21c5d767f76"
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
