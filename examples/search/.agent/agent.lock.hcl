# This file is maintained by "agent lock". Do not edit it by hand:
# check-config verifies every provider against it.

lock_file_version = 1

provider "fs" {
  source      = "builtin/filesystem"
  version     = "0.1.0"
  resolved_at = "2026-12-02T02:09:29Z"
  checksums = {
    "darwin_amd64"  = "sha256:acc8dafa93a4bc0519294f36b7921ef14de61e96fa2194f6836a6a926391bce5"
    "darwin_arm64"  = "sha256:acc8dafa93a4bc0519294f36b7921ef14de61e96fa2194f6836a6a926391bce5"
    "linux_amd64"   = "sha256:acc8dafa93a4bc0519294f36b7921ef14de61e96fa2194f6836a6a926391bce5"
    "linux_arm64"   = "sha256:acc8dafa93a4bc0519294f36b7921ef14de61e96fa2194f6836a6a926391bce5"
    "windows_amd64" = "sha256:acc8dafa93a4bc0519294f36b7921ef14de61e96fa2194f6836a6a926391bce5"
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
  resolved_at = "2026-12-02T00:42:22Z"
  checksums = {
    "darwin_amd64"  = "sha256:453f7287cb1b7f0a9746f0609d7ed79b1d56f16e795bd1079b9a80f85fdf20c4"
    "darwin_arm64"  = "sha256:453f7287cb1b7f0a9746f0609d7ed79b1d56f16e795bd1079b9a80f85fdf20c4"
    "linux_amd64"   = "sha256:453f7287cb1b7f0a9746f0609d7ed79b1d56f16e795bd1079b9a80f85fdf20c4"
    "linux_arm64"   = "sha256:453f7287cb1b7f0a9746f0609d7ed79b1d56f16e795bd1079b9a80f85fdf20c4"
    "windows_amd64" = "sha256:453f7287cb1b7f0a9746f0609d7ed79b1d56f16e795bd1079b9a80f85fdf20c4"
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
  resolved_at = "2026-12-02T02:09:29Z"
  checksums = {
    "darwin_amd64"  = "sha256:0ec981ba2b834650e308873ba0c1d81396557f6f0e64be72af25808ed00cb3a8"
    "darwin_arm64"  = "sha256:0ec981ba2b834650e308873ba0c1d81396557f6f0e64be72af25808ed00cb3a8"
    "linux_amd64"   = "sha256:0ec981ba2b834650e308873ba0c1d81396557f6f0e64be72af25808ed00cb3a8"
    "linux_arm64"   = "sha256:0ec981ba2b834650e308873ba0c1d81396557f6f0e64be72af25808ed00cb3a8"
    "windows_amd64" = "sha256:0ec981ba2b834650e308873ba0c1d81396557f6f0e64be72af25808ed00cb3a8"
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
