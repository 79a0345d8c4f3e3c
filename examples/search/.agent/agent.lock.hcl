# This file is maintained by "agent lock". Do not edit it by hand:
# check-config verifies every provider against it.

lock_file_version = 1

provider "fs" {
  source      = "builtin/filesystem"
  version     = "0.1.0"
  resolved_at = "2026-12-02T05:08:10Z"
  checksums = {
    "darwin_amd64"  = "sha256:948a054c60d2d85cf17448c3055a823c3b7494e0fefcab64d3fa1d63c6300caf"
    "darwin_arm64"  = "sha256:948a054c60d2d85cf17448c3055a823c3b7494e0fefcab64d3fa1d63c6300caf"
    "linux_amd64"   = "sha256:948a054c60d2d85cf17448c3055a823c3b7494e0fefcab64d3fa1d63c6300caf"
    "linux_arm64"   = "sha256:948a054c60d2d85cf17448c3055a823c3b7494e0fefcab64d3fa1d63c6300caf"
    "windows_amd64" = "sha256:948a054c60d2d85cf17448c3055a823c3b7494e0fefcab64d3fa1d63c6300caf"
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
  resolved_at = "2026-12-02T05:08:10Z"
  checksums = {
    "darwin_amd64"  = "sha256:d5ce305597e391ee5fe2bb6ae8692336dc45faf09998675744575739e8ef33e9"
    "darwin_arm64"  = "sha256:d5ce305597e391ee5fe2bb6ae8692336dc45faf09998675744575739e8ef33e9"
    "linux_amd64"   = "sha256:d5ce305597e391ee5fe2bb6ae8692336dc45faf09998675744575739e8ef33e9"
    "linux_arm64"   = "sha256:d5ce305597e391ee5fe2bb6ae8692336dc45faf09998675744575739e8ef33e9"
    "windows_amd64" = "sha256:d5ce305597e391ee5fe2bb6ae8692336dc45faf09998675744575739e8ef33e9"
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
  resolved_at = "2026-12-02T05:08:10Z"
  checksums = {
    "darwin_amd64"  = "sha256:a68da794b595b086f78013c14672a6d80886a2763e534f1de83b87c818e2df3a"
    "darwin_arm64"  = "sha256:a68da794b595b086f78013c14672a6d80886a2763e534f1de83b87c818e2df3a"
    "linux_amd64"   = "sha256:a68da794b595b086f78013c14672a6d80886a2763e534f1de83b87c818e2df3a"
    "linux_arm64"   = "sha256:a68da794b595b086f78013c14672a6d80886a2763e534f1de83b87c818e2df3a"
    "windows_amd64" = "sha256:a68da794b595b086f78013c14672a6d80886a2763e534f1de83b87c818e2df3a"
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
