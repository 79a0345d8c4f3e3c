# This file is maintained by "agent lock". Do not edit it by hand:
# check-config verifies every provider against it.

lock_file_version = 1

provider "fs" {
  source      = "builtin/filesystem"
  version     = "0.1.0"
  resolved_at = "2026-11-30T12:29:15Z"
  checksums = {
    "darwin_amd64"  = "sha256:31185ac120d42b9db26721be1eb28e8f4ad0b1c255e602e0b0e9e8e95a8f2e5f"
    "darwin_arm64"  = "sha256:31185ac120d42b9db26721be1eb28e8f4ad0b1c255e602e0b0e9e8e95a8f2e5f"
    "linux_amd64"   = "sha256:31185ac120d42b9db26721be1eb28e8f4ad0b1c255e602e0b0e9e8e95a8f2e5f"
    "linux_arm64"   = "sha256:31185ac120d42b9db26721be1eb28e8f4ad0b1c255e602e0b0e9e8e95a8f2e5f"
    "windows_amd64" = "sha256:31185ac120d42b9db26721be1eb28e8f4ad0b1c255e602e0b0e9e8e95a8f2e5f"
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
  resolved_at = "2026-11-30T12:29:15Z"
  checksums = {
    "darwin_amd64"  = "sha256:9d420ba275ddde2ae953e966fdca8f76359a9dc53653ad05beda024745022ec6"
    "darwin_arm64"  = "sha256:9d420ba275ddde2ae953e966fdca8f76359a9dc53653ad05beda024745022ec6"
    "linux_amd64"   = "sha256:9d420ba275ddde2ae953e966fdca8f76359a9dc53653ad05beda024745022ec6"
    "linux_arm64"   = "sha256:9d420ba275ddde2ae953e966fdca8f76359a9dc53653ad05beda024745022ec6"
    "windows_amd64" = "sha256:9d420ba275ddde2ae953e966fdca8f76359a9dc53653ad05beda024745022ec6"
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
