# This file is maintained by "agent lock". Do not edit it by hand:
# check-config verifies every provider against it.

lock_file_version = 1

provider "scripted" {
  source      = "builtin/scripted"
  version     = "0.1.0"
  resolved_at = "2026-11-30T13:53:27Z"
  checksums = {
    "darwin_amd64"  = "sha256:d0a53a472d52bfbb3c60ed0ac7161cd9bcd0796878000a178c5b691adc2949d7"
    "darwin_arm64"  = "sha256:d0a53a472d52bfbb3c60ed0ac7161cd9bcd0796878000a178c5b691adc2949d7"
    "linux_amd64"   = "sha256:d0a53a472d52bfbb3c60ed0ac7161cd9bcd0796878000a178c5b691adc2949d7"
    "linux_arm64"   = "sha256:d0a53a472d52bfbb3c60ed0ac7161cd9bcd0796878000a178c5b691adc2949d7"
    "windows_amd64" = "sha256:d0a53a472d52bfbb3c60ed0ac7161cd9bcd0796878000a178c5b691adc2949d7"
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
  resolved_at = "2026-11-30T13:53:27Z"
  checksums = {
    "darwin_amd64"  = "sha256:4813b7cebd8781a5c4cc124663537f1df6e7a89ba99e6d357b24891c540e2289"
    "darwin_arm64"  = "sha256:4813b7cebd8781a5c4cc124663537f1df6e7a89ba99e6d357b24891c540e2289"
    "linux_amd64"   = "sha256:4813b7cebd8781a5c4cc124663537f1df6e7a89ba99e6d357b24891c540e2289"
    "linux_arm64"   = "sha256:4813b7cebd8781a5c4cc124663537f1df6e7a89ba99e6d357b24891c540e2289"
    "windows_amd64" = "sha256:4813b7cebd8781a5c4cc124663537f1df6e7a89ba99e6d357b24891c540e2289"
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
