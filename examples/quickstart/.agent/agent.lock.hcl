# This file is maintained by "agent lock". Do not edit it by hand:
# check-config verifies every provider against it.

lock_file_version = 1

provider "fs" {
  source      = "builtin/filesystem"
  version     = "0.1.0"
  resolved_at = "2026-11-30T14:01:28Z"
  checksums = {
    "darwin_amd64"  = "sha256:9714ed02a1ef0ed34c86db1db3470b618d4d2bb5dc25f6af096bfda02c1d8bc9"
    "darwin_arm64"  = "sha256:9714ed02a1ef0ed34c86db1db3470b618d4d2bb5dc25f6af096bfda02c1d8bc9"
    "linux_amd64"   = "sha256:9714ed02a1ef0ed34c86db1db3470b618d4d2bb5dc25f6af096bfda02c1d8bc9"
    "linux_arm64"   = "sha256:9714ed02a1ef0ed34c86db1db3470b618d4d2bb5dc25f6af096bfda02c1d8bc9"
    "windows_amd64" = "sha256:9714ed02a1ef0ed34c86db1db3470b618d4d2bb5dc25f6af096bfda02c1d8bc9"
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
  resolved_at = "2026-11-30T13:55:55Z"
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
