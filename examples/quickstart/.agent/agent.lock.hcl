# This file is maintained by "agent lock". Do not edit it by hand:
# check-config verifies every provider against it.

lock_file_version = 1

provider "fs" {
  source      = "builtin/filesystem"
  version     = "0.1.0"
  resolved_at = "2026-12-02T00:37:36Z"
  checksums = {
    "darwin_amd64"  = "sha256:8f092feb7670f39d96b540df00b722964a05d7e8e6d343cb09681b5bdcc78e0a"
    "darwin_arm64"  = "sha256:8f092feb7670f39d96b540df00b722964a05d7e8e6d343cb09681b5bdcc78e0a"
    "linux_amd64"   = "sha256:8f092feb7670f39d96b540df00b722964a05d7e8e6d343cb09681b5bdcc78e0a"
    "linux_arm64"   = "sha256:8f092feb7670f39d96b540df00b722964a05d7e8e6d343cb09681b5bdcc78e0a"
    "windows_amd64" = "sha256:8f092feb7670f39d96b540df00b722964a05d7e8e6d343cb09681b5bdcc78e0a"
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
  resolved_at = "2026-12-02T00:37:36Z"
  checksums = {
    "darwin_amd64"  = "sha256:92edd7f783a1acb897a4448daa12ea58ff03870eaae76b53a95366479989c47e"
    "darwin_arm64"  = "sha256:92edd7f783a1acb897a4448daa12ea58ff03870eaae76b53a95366479989c47e"
    "linux_amd64"   = "sha256:92edd7f783a1acb897a4448daa12ea58ff03870eaae76b53a95366479989c47e"
    "linux_arm64"   = "sha256:92edd7f783a1acb897a4448daa12ea58ff03870eaae76b53a95366479989c47e"
    "windows_amd64" = "sha256:92edd7f783a1acb897a4448daa12ea58ff03870eaae76b53a95366479989c47e"
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
