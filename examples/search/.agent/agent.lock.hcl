# This file is maintained by "agent lock". Do not edit it by hand:
# check-config verifies every provider against it.

lock_file_version = 1

provider "fs" {
  source      = "builtin/filesystem"
  version     = "0.1.0"
  resolved_at = "2026-12-02T12:03:47Z"
  checksums = {
    "darwin_amd64"  = "sha256:e5ce0fd253525f9c9ab277f338b69b6875faee6958ca66059a076417b6e3c718"
    "darwin_arm64"  = "sha256:e5ce0fd253525f9c9ab277f338b69b6875faee6958ca66059a076417b6e3c718"
    "linux_amd64"   = "sha256:e5ce0fd253525f9c9ab277f338b69b6875faee6958ca66059a076417b6e3c718"
    "linux_arm64"   = "sha256:e5ce0fd253525f9c9ab277f338b69b6875faee6958ca66059a076417b6e3c718"
    "windows_amd64" = "sha256:e5ce0fd253525f9c9ab277f338b69b6875faee6958ca66059a076417b6e3c718"
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
  resolved_at = "2026-12-02T12:03:47Z"
  checksums = {
    "darwin_amd64"  = "sha256:7eecda5fbbc7024bef41ed83c109a46a21d3434566402ab82e56a36f6d079d6b"
    "darwin_arm64"  = "sha256:7eecda5fbbc7024bef41ed83c109a46a21d3434566402ab82e56a36f6d079d6b"
    "linux_amd64"   = "sha256:7eecda5fbbc7024bef41ed83c109a46a21d3434566402ab82e56a36f6d079d6b"
    "linux_arm64"   = "sha256:7eecda5fbbc7024bef41ed83c109a46a21d3434566402ab82e56a36f6d079d6b"
    "windows_amd64" = "sha256:7eecda5fbbc7024bef41ed83c109a46a21d3434566402ab82e56a36f6d079d6b"
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
  resolved_at = "2026-12-02T12:03:47Z"
  checksums = {
    "darwin_amd64"  = "sha256:d74009edfaaff2c1348ae6b996e95ebb60be5c4f2e098835dc96982ff2023d2c"
    "darwin_arm64"  = "sha256:d74009edfaaff2c1348ae6b996e95ebb60be5c4f2e098835dc96982ff2023d2c"
    "linux_amd64"   = "sha256:d74009edfaaff2c1348ae6b996e95ebb60be5c4f2e098835dc96982ff2023d2c"
    "linux_arm64"   = "sha256:d74009edfaaff2c1348ae6b996e95ebb60be5c4f2e098835dc96982ff2023d2c"
    "windows_amd64" = "sha256:d74009edfaaff2c1348ae6b996e95ebb60be5c4f2e098835dc96982ff2023d2c"
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
