# This file is maintained by "agent lock". Do not edit it by hand:
# check-config verifies every provider against it.

lock_file_version = 1

provider "fs" {
  source      = "builtin/filesystem"
  version     = "0.1.0"
  resolved_at = "2026-12-03T08:37:43Z"
  checksums = {
    "darwin_amd64"  = "sha256:bb022844d65d8a2b585a8929adb47f8038fc342760c5af7fb43855d757584cee"
    "darwin_arm64"  = "sha256:bb022844d65d8a2b585a8929adb47f8038fc342760c5af7fb43855d757584cee"
    "linux_amd64"   = "sha256:bb022844d65d8a2b585a8929adb47f8038fc342760c5af7fb43855d757584cee"
    "linux_arm64"   = "sha256:bb022844d65d8a2b585a8929adb47f8038fc342760c5af7fb43855d757584cee"
    "windows_amd64" = "sha256:bb022844d65d8a2b585a8929adb47f8038fc342760c5af7fb43855d757584cee"
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
  resolved_at = "2026-12-03T08:37:43Z"
  checksums = {
    "darwin_amd64"  = "sha256:c85f32d3efc569c5eaacf7196a520cc149cbadf90be66912c01566ab76481b87"
    "darwin_arm64"  = "sha256:c85f32d3efc569c5eaacf7196a520cc149cbadf90be66912c01566ab76481b87"
    "linux_amd64"   = "sha256:c85f32d3efc569c5eaacf7196a520cc149cbadf90be66912c01566ab76481b87"
    "linux_arm64"   = "sha256:c85f32d3efc569c5eaacf7196a520cc149cbadf90be66912c01566ab76481b87"
    "windows_amd64" = "sha256:c85f32d3efc569c5eaacf7196a520cc149cbadf90be66912c01566ab76481b87"
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
  resolved_at = "2026-12-03T08:37:43Z"
  checksums = {
    "darwin_amd64"  = "sha256:e8500df3c9aa35d479f8cad1fb4c5c86476087adcc176e1676de71dd1222aae1"
    "darwin_arm64"  = "sha256:e8500df3c9aa35d479f8cad1fb4c5c86476087adcc176e1676de71dd1222aae1"
    "linux_amd64"   = "sha256:e8500df3c9aa35d479f8cad1fb4c5c86476087adcc176e1676de71dd1222aae1"
    "linux_arm64"   = "sha256:e8500df3c9aa35d479f8cad1fb4c5c86476087adcc176e1676de71dd1222aae1"
    "windows_amd64" = "sha256:e8500df3c9aa35d479f8cad1fb4c5c86476087adcc176e1676de71dd1222aae1"
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
