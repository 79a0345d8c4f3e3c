# This file is maintained by "agent lock". Do not edit it by hand:
# check-config verifies every provider against it.

lock_file_version = 1

provider "fs" {
  source      = "builtin/filesystem"
  version     = "0.1.0"
  resolved_at = "2026-12-02T05:38:03Z"
  checksums = {
    "darwin_amd64"  = "sha256:0e97825f25200edb9885b9b674c55385ca7c4a895f070737ee55cb1e0c09d682"
    "darwin_arm64"  = "sha256:0e97825f25200edb9885b9b674c55385ca7c4a895f070737ee55cb1e0c09d682"
    "linux_amd64"   = "sha256:0e97825f25200edb9885b9b674c55385ca7c4a895f070737ee55cb1e0c09d682"
    "linux_arm64"   = "sha256:0e97825f25200edb9885b9b674c55385ca7c4a895f070737ee55cb1e0c09d682"
    "windows_amd64" = "sha256:0e97825f25200edb9885b9b674c55385ca7c4a895f070737ee55cb1e0c09d682"
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
  resolved_at = "2026-12-02T05:38:03Z"
  checksums = {
    "darwin_amd64"  = "sha256:f8e0a5dc25efaedd8b85e9306d53a37ac759a362956ea80706868c12d6bcee9f"
    "darwin_arm64"  = "sha256:f8e0a5dc25efaedd8b85e9306d53a37ac759a362956ea80706868c12d6bcee9f"
    "linux_amd64"   = "sha256:f8e0a5dc25efaedd8b85e9306d53a37ac759a362956ea80706868c12d6bcee9f"
    "linux_arm64"   = "sha256:f8e0a5dc25efaedd8b85e9306d53a37ac759a362956ea80706868c12d6bcee9f"
    "windows_amd64" = "sha256:f8e0a5dc25efaedd8b85e9306d53a37ac759a362956ea80706868c12d6bcee9f"
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
  resolved_at = "2026-12-02T05:38:03Z"
  checksums = {
    "darwin_amd64"  = "sha256:ed55136b1b9f6d60067fbb54485f9857e524666f647e6df3d7ab023b0b803a5c"
    "darwin_arm64"  = "sha256:ed55136b1b9f6d60067fbb54485f9857e524666f647e6df3d7ab023b0b803a5c"
    "linux_amd64"   = "sha256:ed55136b1b9f6d60067fbb54485f9857e524666f647e6df3d7ab023b0b803a5c"
    "linux_arm64"   = "sha256:ed55136b1b9f6d60067fbb54485f9857e524666f647e6df3d7ab023b0b803a5c"
    "windows_amd64" = "sha256:ed55136b1b9f6d60067fbb54485f9857e524666f647e6df3d7ab023b0b803a5c"
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
