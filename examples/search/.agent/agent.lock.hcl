# This file is maintained by "agent lock". Do not edit it by hand:
# check-config verifies every provider against it.

lock_file_version = 1

provider "fs" {
  source      = "builtin/filesystem"
  version     = "0.1.0"
  resolved_at = "2026-12-03T03:59:48Z"
  checksums = {
    "darwin_amd64"  = "sha256:aa58af2276295d029a8d1b7dc7e47dac8f49fba79116bdf79a942c98889066a3"
    "darwin_arm64"  = "sha256:aa58af2276295d029a8d1b7dc7e47dac8f49fba79116bdf79a942c98889066a3"
    "linux_amd64"   = "sha256:aa58af2276295d029a8d1b7dc7e47dac8f49fba79116bdf79a942c98889066a3"
    "linux_arm64"   = "sha256:aa58af2276295d029a8d1b7dc7e47dac8f49fba79116bdf79a942c98889066a3"
    "windows_amd64" = "sha256:aa58af2276295d029a8d1b7dc7e47dac8f49fba79116bdf79a942c98889066a3"
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
  resolved_at = "2026-12-02T12:16:46Z"
  checksums = {
    "darwin_amd64"  = "sha256:481fc726ae9cd086f67d269f4bf58a1ff5a44dcf88dd42328f4d94a4fb3438e0"
    "darwin_arm64"  = "sha256:481fc726ae9cd086f67d269f4bf58a1ff5a44dcf88dd42328f4d94a4fb3438e0"
    "linux_amd64"   = "sha256:481fc726ae9cd086f67d269f4bf58a1ff5a44dcf88dd42328f4d94a4fb3438e0"
    "linux_arm64"   = "sha256:481fc726ae9cd086f67d269f4bf58a1ff5a44dcf88dd42328f4d94a4fb3438e0"
    "windows_amd64" = "sha256:481fc726ae9cd086f67d269f4bf58a1ff5a44dcf88dd42328f4d94a4fb3438e0"
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
  resolved_at = "2026-12-03T03:59:48Z"
  checksums = {
    "darwin_amd64"  = "sha256:692d704a3a027c27d77f36116fa351347c1be20a02629e7e10662367bbe2cc60"
    "darwin_arm64"  = "sha256:692d704a3a027c27d77f36116fa351347c1be20a02629e7e10662367bbe2cc60"
    "linux_amd64"   = "sha256:692d704a3a027c27d77f36116fa351347c1be20a02629e7e10662367bbe2cc60"
    "linux_arm64"   = "sha256:692d704a3a027c27d77f36116fa351347c1be20a02629e7e10662367bbe2cc60"
    "windows_amd64" = "sha256:692d704a3a027c27d77f36116fa351347c1be20a02629e7e10662367bbe2cc60"
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
