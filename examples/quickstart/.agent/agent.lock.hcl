# This file is maintained by "agent lock". Do not edit it by hand:
# check-config verifies every provider against it.

lock_file_version = 1

provider "fs" {
  source      = "builtin/filesystem"
  version     = "0.1.0"
  resolved_at = "2026-11-30T14:37:07Z"
  checksums = {
    "darwin_amd64"  = "sha256:1ea3323f49d8f1350987bbf991f1139fb245331991c213cff9d076faeb803c42"
    "darwin_arm64"  = "sha256:1ea3323f49d8f1350987bbf991f1139fb245331991c213cff9d076faeb803c42"
    "linux_amd64"   = "sha256:1ea3323f49d8f1350987bbf991f1139fb245331991c213cff9d076faeb803c42"
    "linux_arm64"   = "sha256:1ea3323f49d8f1350987bbf991f1139fb245331991c213cff9d076faeb803c42"
    "windows_amd64" = "sha256:1ea3323f49d8f1350987bbf991f1139fb245331991c213cff9d076faeb803c42"
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
  resolved_at = "2026-11-30T14:37:07Z"
  checksums = {
    "darwin_amd64"  = "sha256:ea55ba39c1796af66c3fa8b2e99fe1e4ddeeb317d2c6a9b4e59719cfe6e661f7"
    "darwin_arm64"  = "sha256:ea55ba39c1796af66c3fa8b2e99fe1e4ddeeb317d2c6a9b4e59719cfe6e661f7"
    "linux_amd64"   = "sha256:ea55ba39c1796af66c3fa8b2e99fe1e4ddeeb317d2c6a9b4e59719cfe6e661f7"
    "linux_arm64"   = "sha256:ea55ba39c1796af66c3fa8b2e99fe1e4ddeeb317d2c6a9b4e59719cfe6e661f7"
    "windows_amd64" = "sha256:ea55ba39c1796af66c3fa8b2e99fe1e4ddeeb317d2c6a9b4e59719cfe6e661f7"
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
