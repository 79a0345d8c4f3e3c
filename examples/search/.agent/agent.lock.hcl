# This file is maintained by "agent lock". Do not edit it by hand:
# check-config verifies every provider against it.

lock_file_version = 1

provider "fs" {
  source      = "builtin/filesystem"
  version     = "0.1.0"
  resolved_at = "2026-12-02T06:09:18Z"
  checksums = {
    "darwin_amd64"  = "sha256:fb2522c63e017c20ed561385aefb05aa8d685fc8120d89c09022f2841273035a"
    "darwin_arm64"  = "sha256:fb2522c63e017c20ed561385aefb05aa8d685fc8120d89c09022f2841273035a"
    "linux_amd64"   = "sha256:fb2522c63e017c20ed561385aefb05aa8d685fc8120d89c09022f2841273035a"
    "linux_arm64"   = "sha256:fb2522c63e017c20ed561385aefb05aa8d685fc8120d89c09022f2841273035a"
    "windows_amd64" = "sha256:fb2522c63e017c20ed561385aefb05aa8d685fc8120d89c09022f2841273035a"
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
  tools = [
    {
      name = "read_file"
      kind = "data_source"
      risk = "read_only"
    },
    {
      name = "write_file"
      kind = "resource"
      risk = "moderate"
    },
    {
      name = "edit_file"
      kind = "resource"
      risk = "moderate"
    },
    {
      name = "multi_edit"
      kind = "resource"
      risk = "moderate"
    },
  ]
}

provider "scripted" {
  source      = "builtin/scripted"
  version     = "0.1.0"
  resolved_at = "2026-12-02T06:09:18Z"
  checksums = {
    "darwin_amd64"  = "sha256:62553b0278d09b7b7337760f0d76fa0536d91bfffe3a4dc0327334c9cfba6b22"
    "darwin_arm64"  = "sha256:62553b0278d09b7b7337760f0d76fa0536d91bfffe3a4dc0327334c9cfba6b22"
    "linux_amd64"   = "sha256:62553b0278d09b7b7337760f0d76fa0536d91bfffe3a4dc0327334c9cfba6b22"
    "linux_arm64"   = "sha256:62553b0278d09b7b7337760f0d76fa0536d91bfffe3a4dc0327334c9cfba6b22"
    "windows_amd64" = "sha256:62553b0278d09b7b7337760f0d76fa0536d91bfffe3a4dc0327334c9cfba6b22"
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

provider "search" {
  source      = "builtin/search"
  version     = "0.1.0"
  resolved_at = "2026-12-02T06:09:18Z"
  checksums = {
    "darwin_amd64"  = "sha256:60901a781ba379e1e84c4abadc19fddf2d16ecaf46c084d369a403d199916645"
    "darwin_arm64"  = "sha256:60901a781ba379e1e84c4abadc19fddf2d16ecaf46c084d369a403d199916645"
    "linux_amd64"   = "sha256:60901a781ba379e1e84c4abadc19fddf2d16ecaf46c084d369a403d199916645"
    "linux_arm64"   = "sha256:60901a781ba379e1e84c4abadc19fddf2d16ecaf46c084d369a403d199916645"
    "windows_amd64" = "sha256:60901a781ba379e1e84c4abadc19fddf2d16ecaf46c084d369a403d199916645"
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
      name        = "roots"
      type        = "list(string)"
      required    = true
      sensitive   = false
      description = "Directories glob and grep may search. Absolute, or relative to the session's working directory. A path escaping every root, through .. or a symbolic link, is refused; symbolic links met during a walk are not followed."
    },
  ]
  tools = [
    {
      name = "glob"
      kind = "data_source"
      risk = "read_only"
    },
    {
      name = "grep"
      kind = "data_source"
      risk = "read_only"
    },
  ]
}
