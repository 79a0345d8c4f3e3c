# This file is maintained by "agent lock". Do not edit it by hand:
# check-config verifies every provider against it.

lock_file_version = 1

provider "fs" {
  source      = "builtin/filesystem"
  version     = "0.1.0"
  resolved_at = "2026-12-03T08:38:17Z"
  checksums = {
    "darwin_amd64"  = "sha256:6c4082f7c045ea179844f42678ab8fa7992d57e5c962a7d67ff7c72ee4bfe095"
    "darwin_arm64"  = "sha256:6c4082f7c045ea179844f42678ab8fa7992d57e5c962a7d67ff7c72ee4bfe095"
    "linux_amd64"   = "sha256:6c4082f7c045ea179844f42678ab8fa7992d57e5c962a7d67ff7c72ee4bfe095"
    "linux_arm64"   = "sha256:6c4082f7c045ea179844f42678ab8fa7992d57e5c962a7d67ff7c72ee4bfe095"
    "windows_amd64" = "sha256:6c4082f7c045ea179844f42678ab8fa7992d57e5c962a7d67ff7c72ee4bfe095"
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
  resolved_at = "2026-12-03T08:38:17Z"
  checksums = {
    "darwin_amd64"  = "sha256:5408d1d8230fcbfa262261ef6277c9440f2972d9a8a1082ef20da6d25bc4d72d"
    "darwin_arm64"  = "sha256:5408d1d8230fcbfa262261ef6277c9440f2972d9a8a1082ef20da6d25bc4d72d"
    "linux_amd64"   = "sha256:5408d1d8230fcbfa262261ef6277c9440f2972d9a8a1082ef20da6d25bc4d72d"
    "linux_arm64"   = "sha256:5408d1d8230fcbfa262261ef6277c9440f2972d9a8a1082ef20da6d25bc4d72d"
    "windows_amd64" = "sha256:5408d1d8230fcbfa262261ef6277c9440f2972d9a8a1082ef20da6d25bc4d72d"
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
  resolved_at = "2026-12-03T08:38:17Z"
  checksums = {
    "darwin_amd64"  = "sha256:2133f17a7bc33a777341686acac9f0121b16df351a6a17beffbcc3355bd94943"
    "darwin_arm64"  = "sha256:2133f17a7bc33a777341686acac9f0121b16df351a6a17beffbcc3355bd94943"
    "linux_amd64"   = "sha256:2133f17a7bc33a777341686acac9f0121b16df351a6a17beffbcc3355bd94943"
    "linux_arm64"   = "sha256:2133f17a7bc33a777341686acac9f0121b16df351a6a17beffbcc3355bd94943"
    "windows_amd64" = "sha256:2133f17a7bc33a777341686acac9f0121b16df351a6a17beffbcc3355bd94943"
  }
  envelope = {
    env   = []
    run   = ["rg?"]
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
